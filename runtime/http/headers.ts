import type { IncomingHttpHeaders } from "node:http";

/** A request's headers, looked up by name in any case (spec 2.5). */
export class RequestHeaders {
  private readonly map: Readonly<Record<string, string | string[] | undefined>>;

  /** A plain record, for a hand-built request; names in any case. */
  constructor(headers: IncomingHttpHeaders | Readonly<Record<string, string>> = {}, lowered = false) {
    this.map = lowered ? headers : lowerCased(headers);
  }

  /** Node's parsed headers, whose names are lower-cased already. */
  static fromNode(headers: IncomingHttpHeaders): RequestHeaders {
    return new RequestHeaders(headers, true);
  }

  /** The value of `name`; repeated headers are joined with ", " (RFC 9110 section 5.3). */
  get(name: string): string | undefined {
    const value = this.map[name.toLowerCase()];
    return Array.isArray(value) ? value.join(", ") : value;
  }

  has(name: string): boolean {
    return this.map[name.toLowerCase()] !== undefined;
  }

  get names(): string[] {
    return Object.keys(this.map).filter((name) => this.map[name] !== undefined);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of this.names) yield [name, this.get(name) as string];
  }
}

function lowerCased(
  headers: IncomingHttpHeaders | Readonly<Record<string, string>>,
): Readonly<Record<string, string | string[] | undefined>> {
  const keys = Object.keys(headers);
  if (keys.every((key) => key === key.toLowerCase())) return headers;
  const out: Record<string, string | string[] | undefined> = Object.create(null);
  for (const key of keys) out[key.toLowerCase()] = headers[key];
  return out;
}
