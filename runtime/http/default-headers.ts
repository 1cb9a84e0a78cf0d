/**
 * The headers fw adds to its answers unless the handler set the same header itself (docs/security.md). Every answer with content gets `nosniff`, so a browser never reads text or bytes
 * as a script or a page; an HTML answer also gets the app's Content-Security-Policy (what the
 * page may load and run, and `frame-ancestors`: no other site frames it, against clickjacking),
 * `X-Frame-Options` saying the same to older browsers, and a referrer policy that sends only its
 * origin to other sites, never its path and query.
 */
export const NOSNIFF: readonly string[] = Object.freeze(["x-content-type-options", "nosniff"]);

/**
 * What an HTML answer carries, as flat [name, value, …] pairs, `nosniff` first: built once per
 * app from its settings (server/content-security-policy.ts). No policy, or no frame option,
 * leaves that header out. A plain array, not frozen: it is copied into every page's headers.
 */
export function pageDefaults(policy: string | undefined, frameOptions: string | undefined): string[] {
  return [
    ...NOSNIFF,
    ...(frameOptions === undefined ? [] : ["x-frame-options", frameOptions]),
    ...(policy === undefined ? [] : ["content-security-policy", policy]),
    "referrer-policy",
    "strict-origin-when-cross-origin",
  ];
}

const HTML = /^\s*text\/html\b/i;

/**
 * Adds to a flat header list the defaults its content type calls for (`page`, an app's
 * `pageDefaults`, for HTML), leaving out any the list already names (a handler that sets its own
 * keeps it). An answer without a content type (a redirect, an empty body) gets none.
 */
export function withDefaultHeaders(list: string[], page: readonly string[]): string[] {
  let type: string | undefined;
  for (let i = 0; i < list.length; i += 2) {
    if (isNamed(list[i] as string, "content-type")) {
      type = list[i + 1];
      break;
    }
  }
  if (type === undefined) return list;
  const defaults = HTML.test(type) ? page : NOSNIFF;
  for (let d = 0; d < defaults.length; d += 2) {
    const name = defaults[d] as string;
    if (!names(list, name)) list.push(name, defaults[d + 1] as string);
  }
  return list;
}

/** Whether a flat [name, value, …] list holds header `lower` (a lower-case name), in any case. */
export function names(list: readonly string[], lower: string): boolean {
  for (let i = 0; i < list.length; i += 2) if (isNamed(list[i] as string, lower)) return true;
  return false;
}

/** Whether a list of [name, value] headers holds header `lower` (a lower-case name), in any case. */
export function hasHeader(headers: readonly (readonly [string, string])[], lower: string): boolean {
  for (let i = 0; i < headers.length; i++) if (isNamed((headers[i] as readonly [string, string])[0], lower)) return true;
  return false;
}

/** `name.toLowerCase() === lower`, without making a string for the usual lower-case name. */
function isNamed(name: string, lower: string): boolean {
  return name.length === lower.length && (name === lower || name.toLowerCase() === lower);
}
