import { errorLine, summary } from "../http/error-log.js";
import { currentRequestId } from "./request-context.js";
import { LEVEL_VALUES, type LogFormat, type LogLevel } from "./settings.js";

/** Where text lines go: the app's console (injectable, so tests read what was written). */
export interface LineSink {
  out(line: string): void;
  err(line: string): void;
}

/** The levels a line may be written at. */
export type LineLevel = Exclude<LogLevel, "silent">;

/** One answered request, as the access log writes it. */
export interface AccessEntry {
  readonly requestId: string;
  readonly method: string;
  /** The path without its query (a query may hold secrets), cut past 200 characters. */
  readonly path: string;
  /** The pattern of the route that answered (`/posts/:id`), if one did. */
  readonly route: string | undefined;
  readonly status: number;
  readonly ms: number;
}

/** A failure: a 500's cause (with its incident id), a socket listener that threw, a session not saved. */
export interface FailureEntry {
  /** What failed: `500 GET /items/7 (route /items/:id)`. */
  readonly what: string;
  readonly cause: unknown;
  readonly incident?: string | undefined;
  readonly requestId?: string | undefined;
}

/**
 * How fw writes its log: one access entry per request, failures, and lines from its modules (and
 * the app's own, through `log`). Two formats: `TextLogger` (the lines fw always wrote, for a
 * person) and the JSON logger (json-logger.ts, pino, loaded only when chosen).
 */
export interface Logger {
  readonly format: LogFormat;
  readonly level: LogLevel;
  /** Whether a line at `level` is written. */
  enabled(level: LineLevel): boolean;
  access(entry: AccessEntry): void;
  failure(entry: FailureEntry): void;
  /** A line from a module or the app: `fields` are written as JSON members (text: after the message). */
  write(level: LineLevel, message: string, fields?: Readonly<Record<string, unknown>>): void;
}

export interface TextLoggerOptions {
  readonly sink: LineSink;
  readonly level: LogLevel;
  /** Follow each failure with its stack (dev, or `logStacks`). */
  readonly stacks: boolean;
}

/**
 * The text format: `GET /posts/7 200 1.2ms` per request on the out stream, and a failure as one
 * line on the err stream (`fw: 500 GET /items/7 (route /items/:id): TypeError: … [incident
 * 1a2b3c4d]`, error-log.ts), exactly the lines fw wrote before it had levels; other lines as
 * written, `info` and below on out, the rest on err, with their fields and the request id after.
 */
export class TextLogger implements Logger {
  readonly format = "text";
  readonly level: LogLevel;
  readonly #threshold: number;
  readonly #options: TextLoggerOptions;

  constructor(options: TextLoggerOptions) {
    this.#options = options;
    this.level = options.level;
    this.#threshold = LEVEL_VALUES[options.level];
  }

  enabled(level: LineLevel): boolean {
    return LEVEL_VALUES[level] >= this.#threshold;
  }

  access(entry: AccessEntry): void {
    if (this.#threshold <= LEVEL_VALUES.info) this.#options.sink.out(`${entry.method} ${entry.path} ${entry.status} ${entry.ms.toFixed(1)}ms`);
  }

  failure(entry: FailureEntry): void {
    if (this.#threshold <= LEVEL_VALUES.error) this.#options.sink.err(errorLine({ ...entry, stacks: this.#options.stacks }));
  }

  write(level: LineLevel, message: string, fields?: Readonly<Record<string, unknown>>): void {
    if (LEVEL_VALUES[level] < this.#threshold) return;
    const requestId = fields?.["requestId"] ?? currentRequestId();
    const shown = fields === undefined ? "" : fieldsText(fields);
    const line = `${message}${shown}${requestId === undefined || shown.includes("requestId=") ? "" : ` [request ${String(requestId)}]`}`;
    if (LEVEL_VALUES[level] <= LEVEL_VALUES.info) this.#options.sink.out(line);
    else this.#options.sink.err(line);
  }
}

/** ` key=value …` of a line's fields, values as JSON (an Error as its summary). */
function fieldsText(fields: Readonly<Record<string, unknown>>): string {
  let text = "";
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    text += ` ${key}=${value instanceof Error ? JSON.stringify(summary(value)) : safeJson(value)}`;
  }
  return text;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return "[unprintable]";
  }
}
