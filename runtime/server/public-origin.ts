import { BootError } from "../routing/boot-error.js";

/** The environment variable naming the app's public origin (`https://example.com`). */
export const ORIGIN_VARIABLE = "FW_ORIGIN";

/**
 * The app's public origin as configured (`FW_ORIGIN` or `HttpApp`'s `origin`): checked and
 * normalised (`https://Example.COM:443/` → `https://example.com`). A path, query, fragment or
 * credentials are refused, naming the setting and what to write instead.
 */
export function checkedOrigin(value: string, setting: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value.trim());
  } catch {
    url = undefined;
  }
  const fix = `write the address the app's visitors use, scheme and host (and port) only: "https://example.com".`;
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new BootError(`${setting}: ${JSON.stringify(value)} is not an http(s) origin; ${fix}`);
  }
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new BootError(`${setting}: ${JSON.stringify(value)} has more than an origin (a path, query or credentials); ${fix}`);
  }
  return url.origin;
}

/** The host name of a checked origin, as the allowed-hosts list writes it (no port). */
export function originHost(origin: string): string {
  return new URL(origin).hostname;
}

let current: string | undefined;
let unknown = `the app has not booted yet: its public origin (${ORIGIN_VARIABLE}) is known once it serves.`;

/**
 * @internal Set by `HttpApp` at boot: the configured origin, or in `dev` without one the address
 * it serves on; `why` says why there is none (production without `FW_ORIGIN`).
 */
export function setPublicOrigin(origin: string | undefined, why?: string): void {
  current = origin;
  if (why !== undefined) unknown = why;
}

/**
 * The app's public origin (`https://example.com`): `FW_ORIGIN` (or `HttpApp`'s `origin`), or in
 * `dev` without one the address it serves on. Links that leave the request (in mail, in a job)
 * are built from it, never from a request's `Host` header, which the client writes: a forged
 * Host cannot put another site's name in a reset link. Throws, saying what to set, before the
 * app serves or in production without `FW_ORIGIN`.
 */
export function publicOrigin(): string {
  if (current === undefined) throw new Error(`fw: ${unknown}`);
  return current;
}

/**
 * An absolute URL to `path` on the app's public origin: `publicUrl("/reset?t=…")` →
 * `https://example.com/reset?t=…`. `path` must start with one "/" (an app path: a mounted table's
 * handler passes `request.href(path)`). Throws like `publicOrigin` when no origin is known.
 */
export function publicUrl(path: string): string {
  if (!path.startsWith("/") || path.startsWith("//")) {
    throw new Error(`publicUrl: ${JSON.stringify(path.slice(0, 80))} is not an app path; write one starting with a single "/", such as "/reset".`);
  }
  return publicOrigin() + path;
}
