import { randomBytes } from "node:crypto";

/** The longest message a production log line quotes from a cause; the rest is cut. */
export const MAX_LOGGED_MESSAGE = 200;

/** A short random id that ties a 500's log line to the page its visitor saw. */
export function incidentId(): string {
  return randomBytes(4).toString("hex");
}

export interface ErrorLine {
  /** What failed, for instance `500 GET /items/7 (route /items/:id)`. */
  readonly what: string;
  readonly cause: unknown;
  /** The id the problem page shows, when there is one. */
  readonly incident?: string;
  /** Follow the line with the cause's stack (dev, or `logStacks`). */
  readonly stacks: boolean;
}

/**
 * The log entry for a failure. Production writes ONE line: what failed, the cause's name and
 * message (control characters escaped, cut at 200 characters) and the incident id; no stack,
 * so a log line cannot carry a stack frame, nor a multi-line message that forges other lines.
 * With `stacks` (dev, or the app's `logStacks`) the cause's stack follows on the next lines.
 */
export function errorLine({ what, cause, incident, stacks }: ErrorLine): string {
  const said = summary(cause);
  const line = `fw: ${oneLine(what)}: ${said}${incident === undefined ? "" : ` [incident ${incident}]`}`;
  const stack = stacks ? stackOf(cause) : undefined;
  return stack === undefined ? line : `${line}\n${framesOf(stack, said)}`;
}

/**
 * A stack without its first line when that line only says again what the log line just said
 * (`Error: message`): the message is printed once. A message the line had to escape or cut is
 * kept, in full, with the stack.
 */
function framesOf(stack: string, said: string): string {
  const head = stack.indexOf("\n");
  return head !== -1 && stack.slice(0, head) === said ? stack.slice(head + 1) : stack;
}

/**
 * `Name: message` of an Error, the string form of anything else, control characters escaped and
 * cut at 200 characters; never throws. What a log line (text or JSON) says of a cause.
 */
export function summary(cause: unknown): string {
  let text: string;
  try {
    text = cause instanceof Error ? `${String(cause.name)}: ${String(cause.message)}` : `thrown ${typeof cause}: ${String(cause)}`;
  } catch {
    text = "a value that cannot be printed";
  }
  const escaped = oneLine(text);
  return escaped.length > MAX_LOGGED_MESSAGE ? `${escaped.slice(0, MAX_LOGGED_MESSAGE)}…` : escaped;
}

/** The cause's stack, when it is an Error that has one; never throws. */
export function stackOf(cause: unknown): string | undefined {
  try {
    return cause instanceof Error && typeof cause.stack === "string" ? cause.stack : undefined;
  } catch {
    return undefined;
  }
}

/** Control characters (C0, DEL, C1) and Unicode line separators, as visible escapes. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

function oneLine(text: string): string {
  return text.replace(CONTROL, (c) => {
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    if (c === "\t") return "\\t";
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}
