/**
 * The cookies a test client holds, as a browser would for one site over plain HTTP: each
 * `Set-Cookie` replaces the cookie of that name, one with `Max-Age=0` (or an `Expires` in the
 * past) removes it, and every request sends what is left.
 */
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  /** Takes the `Set-Cookie` headers of an answer. */
  take(setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (attributes.some(expires)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  /** The `Cookie` header to send, or undefined when the jar is empty. */
  header(): string | undefined {
    if (this.#cookies.size === 0) return undefined;
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  /** A cookie's value, if the jar holds it. */
  get(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  /** Forgets every cookie (a new browser). */
  clear(): void {
    this.#cookies.clear();
  }
}

function expires(attribute: string): boolean {
  const [name = "", value = ""] = attribute.split("=").map((part) => part.trim());
  if (name.toLowerCase() === "max-age") return Number(value) <= 0;
  if (name.toLowerCase() === "expires") return Date.parse(value) <= Date.now();
  return false;
}
