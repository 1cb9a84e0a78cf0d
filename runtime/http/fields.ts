import { BadRequest } from "./failure.js";
import { ownCopy } from "./own-copy.js";

/** At most this many fields in one form or query string; more is a 400. */
export const MAX_FIELDS = 1000;

/**
 * Read-only name → values pairs, from a query string or an urlencoded form. Backed by a Map,
 * so a field named `__proto__` is just a field.
 */
export class Fields {
  constructor(private readonly map: ReadonlyMap<string, readonly string[]> = new Map()) {}

  static readonly empty = new Fields();

  /** Parses `application/x-www-form-urlencoded` text; a malformed encoding is a 400. */
  static parse(text: string, what: "form" | "query"): Fields {
    if (text === "") return Fields.empty;
    const map = new Map<string, string[]>();
    let count = 0;
    for (const pair of text.split("&")) {
      if (pair === "") continue;
      if (++count > MAX_FIELDS) {
        throw new BadRequest(`The ${what} has more than ${MAX_FIELDS} fields.`);
      }
      const eq = pair.indexOf("=");
      add(map, decode(eq === -1 ? pair : pair.slice(0, eq), what), eq === -1 ? "" : decode(pair.slice(eq + 1), what));
    }
    return new Fields(map);
  }

  /** Fields from `[name, value]` pairs already decoded, in order (a name may repeat). */
  static of(pairs: Iterable<readonly [string, string]>): Fields {
    const map = new Map<string, string[]>();
    for (const [name, value] of pairs) add(map, name, value);
    return new Fields(map);
  }

  /** The first value of `name`. */
  get(name: string): string | undefined {
    return this.map.get(name)?.[0];
  }

  getAll(name: string): readonly string[] {
    return this.map.get(name) ?? [];
  }

  has(name: string): boolean {
    return this.map.has(name);
  }

  get names(): string[] {
    return [...this.map.keys()];
  }

  get size(): number {
    return this.map.size;
  }

  /** Every (name, value) pair, in order of first appearance of each name. */
  *entries(): IterableIterator<[string, string]> {
    for (const [name, values] of this.map) for (const value of values) yield [name, value];
  }
}

/**
 * A name or value, decoded. Each is a string of its own, never a view on the body or URL it was
 * cut from (own-copy.ts): a handler may keep a field (a store row, a rate limiter's key) long
 * after the request, and must not keep the whole body with it.
 */
function decode(text: string, what: string): string {
  const spaced = text.includes("+") ? text.replaceAll("+", " ") : text;
  if (!spaced.includes("%")) return spaced === text ? ownCopy(text) : spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    throw new BadRequest(`The ${what} has a malformed percent-encoding.`);
  }
}

function add(map: Map<string, string[]>, name: string, value: string): void {
  const values = map.get(name);
  if (values === undefined) map.set(name, [value]);
  else values.push(value);
}
