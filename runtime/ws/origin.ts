import { BootError } from "../routing/boot-error.js";

/**
 * Which pages may open a WebSocket on the application (cross-site WebSocket hijacking: a
 * browser sends the victim's cookies with a handshake from any site, and the same-origin policy
 * does not apply to sockets). A handshake passes when its `Origin` header is the application's
 * own origin (the scheme it was reached over plus the `Host` header) or one of `allowed`.
 * A handshake without `Origin` is refused: every browser sends one, so only a program leaves it
 * out, and a program can send it too.
 */
export class OriginPolicy {
  readonly #allowed: ReadonlySet<string>;

  /** @param allowed origins as `scheme://host[:port]`, already checked by `checkedOrigins`. */
  constructor(allowed: readonly string[]) {
    this.#allowed = new Set(allowed.map((origin) => originOf(origin) ?? origin));
  }

  allows(origin: string | undefined, host: string | undefined, secure: boolean): boolean {
    if (origin === undefined) return false;
    const sent = originOf(origin);
    if (sent === undefined) return false;
    if (this.#allowed.has(sent)) return true;
    return host !== undefined && host !== "" && originOf(`${secure ? "https" : "http"}://${host}`) === sent;
  }
}

/**
 * `text` as a comparable origin: lower-cased, the default port dropped. Undefined for anything
 * that is not an http(s) origin, such as the "null" a sandboxed page sends.
 */
function originOf(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  return url.origin;
}

/** Boot check of the `allowedOrigins` setting: each entry must be a bare http(s) origin. */
export function checkedOrigins(allowed: readonly string[]): readonly string[] {
  for (const entry of allowed) {
    if (!isBareOrigin(entry)) {
      throw new BootError(
        `allowedOrigins: ${JSON.stringify(entry)} is not an origin; write scheme://host[:port] ` +
          `with no path, such as "https://app.example.com".`,
      );
    }
  }
  return allowed;
}

function isBareOrigin(text: string): boolean {
  if (originOf(text) === undefined) return false;
  const url = new URL(text);
  return url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "" && url.password === "";
}
