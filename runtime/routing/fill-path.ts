/**
 * Filling a route's pattern with values: the one place a path of the table is built from its
 * pattern. The app's generated `path()` (src/.fw/paths.ts, typed by the route table) and fw's
 * own derived pages both call it, so a link is always written as the matcher reads it back.
 */

/** A value a path parameter or a query field takes; it is written with `String(value)`. */
export type PathValue = string | number | bigint | boolean;

/** The query of a built path: a field left `undefined` is left out; an array repeats the field. */
export type PathQuery = Readonly<Record<string, PathValue | undefined | readonly PathValue[]>>;

/**
 * A piece of a parsed pattern: a literal segment, a `:name` parameter or a `*name` catch-all.
 * One shape for all three, so the loop that fills a pattern reads them alike (every link of
 * every derived page is filled here: an Index of 50 rows fills 100 to 150).
 */
interface Part {
  readonly kind: "literal" | "param" | "rest";
  /** The literal's text, or the parameter's name. */
  readonly text: string;
}

/** Parsed patterns: an app has a fixed set of them, so this stays small; past the bound nothing more is kept. */
const parsed = new Map<string, readonly Part[]>();
const MAX_PARSED = 2000;

/**
 * The path `pattern` names with `params` filled in, and `query` after a `?`: `/posts/:id` with
 * `{ id: 7 }` is `/posts/7`, `/docs/*rest` with `{ rest: "guides/live" }` is `/docs/guides/live`
 * (and `/docs` with `rest` empty), `/posts` with the query `{ page: 2 }` is `/posts?page=2`. Each
 * segment is percent-encoded (`a b/c` in a `:name` is `a%20b%2Fc`; a catch-all keeps its `/`).
 *
 * The path is the table's own: under `Route.under`, pass it through `request.href`. A value no
 * segment can hold (an empty string, `.` or `..`, which fw answers 400) or a parameter left out
 * throws, naming the pattern and the parameter: that is a mistake in the code that builds the
 * link, not something a visitor sent.
 */
export function fillPath(pattern: string, params: Readonly<Record<string, PathValue>> = {}, query?: PathQuery): string {
  let path = "";
  for (const part of partsOf(pattern)) {
    if (part.kind === "literal") path += `/${part.text}`;
    else if (part.kind === "param") path += `/${paramSegment(pattern, params, part.text)}`;
    else {
      const rest = valueOf(pattern, params, part.text);
      // An empty catch-all is the path without it (`/docs/*rest` matches `/docs`).
      if (rest !== "") path += `/${rest.split("/").map((piece) => segment(pattern, part.text, piece)).join("/")}`;
    }
  }
  return (path === "" ? "/" : path) + queryOf(query);
}

/**
 * `pattern` made ready to be filled many times with its one parameter `name`: what a table's
 * rows' links are filled with (an Index of 50 rows fills 100 to 150). A whole number (a row's
 * key) is written between the pattern's literal text, as `fillPath` writes it, in one string;
 * any other value goes through `fillPath` and its checks. The path is always
 * `fillPath(pattern, { [name]: value })`, without a params object and a walk of the parts per link.
 */
export function pathFiller(pattern: string, name: string): (value: PathValue) => string {
  const parts = partsOf(pattern);
  const at = parts.findIndex((part) => part.kind !== "literal");
  const general = (value: PathValue): string => fillPath(pattern, { [name]: value });
  // Only a pattern whose one parameter is `name` (no catch-all) has a fast form.
  if (at === -1 || parts[at]?.kind !== "param" || parts[at]?.text !== name || parts.slice(at + 1).some((part) => part.kind !== "literal")) return general;
  const before = parts.slice(0, at).map((part) => `/${part.text}`).join("") + "/";
  const after = parts.slice(at + 1).map((part) => `/${part.text}`).join("");
  return (value) => (isDigits(value) ? before + String(value) + after : general(value));
}

function partsOf(pattern: string): readonly Part[] {
  const known = parsed.get(pattern);
  if (known !== undefined) return known;
  if (!pattern.startsWith("/")) throw new Error(`fillPath(${JSON.stringify(pattern)}): a pattern starts with "/" (/posts/:id).`);
  const trimmed = pattern.length > 1 && pattern.endsWith("/") ? pattern.slice(0, -1) : pattern;
  const parts: Part[] = trimmed === "/" ? [] : trimmed.slice(1).split("/").map(partOf);
  if (parsed.size < MAX_PARSED) parsed.set(pattern, parts);
  return parts;
}

function partOf(text: string): Part {
  if (text.startsWith(":")) return { kind: "param", text: text.slice(1) };
  if (text.startsWith("*")) return { kind: "rest", text: text.slice(1) };
  // A literal is written as the pattern has it (the matcher decodes both the same way).
  return { kind: "literal", text };
}

/**
 * A `:name` parameter's segment. A whole number (a row's key, the common case) is written as
 * its digits, which no rule refuses and `encodeURIComponent` leaves as they are: the checks are
 * skipped, not changed. Anything else goes through `segment`.
 */
function paramSegment(pattern: string, params: Readonly<Record<string, PathValue>>, name: string): string {
  const value = Object.hasOwn(params, name) ? params[name] : undefined;
  if (isDigits(value)) return String(value);
  return segment(pattern, name, valueOf(pattern, params, name));
}

/** A whole number: written as its digits (and a minus), which no rule refuses and encoding leaves alone. */
export function isDigits(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value);
}

function valueOf(pattern: string, params: Readonly<Record<string, PathValue>>, name: string): string {
  const value = Object.hasOwn(params, name) ? params[name] : undefined;
  if (value === undefined || value === null) {
    throw new Error(`fillPath(${JSON.stringify(pattern)}): the parameter \`${name}\` is missing: pass { ${name}: … }.`);
  }
  return String(value);
}

function segment(pattern: string, name: string, text: string): string {
  if (refused(text)) {
    throw new Error(
      `fillPath(${JSON.stringify(pattern)}): the parameter \`${name}\` is ${JSON.stringify(text)}, which no path segment can hold ` +
        "(fw answers 400 to an empty, . or .. segment, a NUL, and a / or \\ beside an empty or dot piece): check the value before building the link.",
    );
  }
  return encoded(text, pattern, name);
}

/** The segments splitPath (runtime/http/path.ts) answers 400: the same rules, so a built link is never one. */
function refused(text: string): boolean {
  if (text === "" || text === "." || text === ".." || text.includes("\0")) return true;
  return (text.includes("/") || text.includes("\\")) && text.split(/[/\\]/).some((piece) => piece === "" || piece === "." || piece === "..");
}

/**
 * `text` percent-encoded; text that is not valid Unicode (a lone surrogate) throws, naming the
 * pattern's parameter (or, with no pattern, the query field `name`).
 */
function encoded(text: string, pattern: string | undefined, name: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    const what = pattern === undefined ? `fillPath: the query field \`${name}\`` : `fillPath(${JSON.stringify(pattern)}): the parameter \`${name}\``;
    throw new Error(`${what} is not valid Unicode text (it holds a lone surrogate).`);
  }
}

function queryOf(query: PathQuery | undefined): string {
  if (query === undefined) return "";
  const fields: string[] = [];
  for (const name of Object.keys(query)) {
    const value = query[name];
    if (value === undefined) continue;
    const values: readonly PathValue[] = Array.isArray(value) ? value : [value as PathValue];
    for (const one of values) fields.push(`${encoded(name, undefined, name)}=${encoded(String(one), undefined, name)}`);
  }
  return fields.length === 0 ? "" : `?${fields.join("&")}`;
}
