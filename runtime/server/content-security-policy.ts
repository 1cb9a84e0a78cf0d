import { createHash } from "node:crypto";
import { BootError } from "../routing/boot-error.js";

/**
 * A Content-Security-Policy as directives, each with its sources: `{ "img-src": ["'self'",
 * "https://cdn.example.com"] }`. As the `contentSecurityPolicy` setting it is merged over fw's
 * default directive by directive: a directive named here replaces fw's, `null` removes fw's.
 */
export type ContentSecurityPolicy = Readonly<Record<string, readonly string[] | null>>;

/** What `contentSecurityPolicy` takes: directives over fw's defaults, a whole policy's text, or `false` for none. */
export type ContentSecurityPolicySetting = ContentSecurityPolicy | string | false;

/**
 * fw's policy for every HTML answer (docs/security.md): everything from the page's own origin
 * only, no inline or `eval`'d script (fw writes none in production; the dev reload client is
 * allowed by its hash), inline styles allowed (`style=` attributes: every CSS `url()` still
 * loads from the origin alone, so injected CSS can restyle but not send anything away), images
 * also as `data:` URLs, no plugins, no `<base>` elsewhere, forms posting to the origin only, and
 * no site framing the page. `connect-src` falls back to `default-src 'self'`, which allows
 * WebSockets to the page's own host (ws: and wss:) in current browsers (CSP Level 3).
 */
export const DEFAULT_CONTENT_SECURITY_POLICY: Readonly<Record<string, readonly string[]>> = Object.freeze({
  "default-src": ["'self'"],
  "script-src": ["'self'"],
  "style-src": ["'self'", "'unsafe-inline'"],
  "img-src": ["'self'", "data:"],
  "object-src": ["'none'"],
  "base-uri": ["'self'"],
  "form-action": ["'self'"],
  "frame-ancestors": ["'none'"],
});

const SETTING = "contentSecurityPolicy";

/** The directives of CSP Level 3 and those browsers ship beside it: a name outside is a typo that would protect nothing. */
const KNOWN = new Set([
  "default-src",
  "script-src",
  "script-src-elem",
  "script-src-attr",
  "style-src",
  "style-src-elem",
  "style-src-attr",
  "img-src",
  "font-src",
  "connect-src",
  "media-src",
  "object-src",
  "frame-src",
  "child-src",
  "worker-src",
  "manifest-src",
  "fenced-frame-src",
  "base-uri",
  "form-action",
  "frame-ancestors",
  "sandbox",
  "report-uri",
  "report-to",
  "upgrade-insecure-requests",
  "block-all-mixed-content",
  "require-trusted-types-for",
  "trusted-types",
  "webrtc",
]);

/** Source keywords, which a policy must write in single quotes: unquoted, `self` is a host named "self". */
const KEYWORDS = /^(self|none|unsafe-inline|unsafe-eval|unsafe-hashes|strict-dynamic|report-sample|wasm-unsafe-eval|inline-speculation-rules|(nonce|sha256|sha384|sha512)-.+)$/i;

/**
 * The policy an app's pages get, as directives: fw's default with the setting applied (a
 * string replaces it whole), checked. Undefined for `false` (no policy at all). Throws a
 * `BootError` naming the directive or source at fault and the fix.
 */
export function policyDirectives(setting: ContentSecurityPolicySetting | undefined): Map<string, readonly string[]> | undefined {
  if (setting === false) return undefined;
  if (setting === undefined) return new Map(Object.entries(DEFAULT_CONTENT_SECURITY_POLICY));
  if (typeof setting === "string") return checked(parsedPolicy(setting));
  if (typeof setting !== "object" || setting === null || Array.isArray(setting)) {
    throw new BootError(`${SETTING} takes directives ({ "img-src": ["'self'", "https://cdn.example.com"] }), a policy's text, or false; not ${describe(setting)}.`);
  }
  const directives = new Map<string, readonly string[]>(Object.entries(DEFAULT_CONTENT_SECURITY_POLICY));
  for (const [name, sources] of Object.entries(setting)) {
    checkName(name);
    if (sources === null) directives.delete(name);
    else if (Array.isArray(sources)) directives.set(name, sources);
    else throw new BootError(`${SETTING}["${name}"] must be a list of sources (["'self'"]) or null to drop fw's, not ${describe(sources)}.`);
  }
  return checked(directives);
}

/** The header's text: `name source source; name …`, in the order the directives were set. */
export function policyText(directives: ReadonlyMap<string, readonly string[]>): string {
  return [...directives].map(([name, sources]) => [name, ...sources].join(" ")).join("; ");
}

/**
 * The policy with an inline script of fw's allowed by its hash (`'sha256-…'`): the dev reload
 * client. Added to `script-src-elem` and `script-src` where they stand (or to a `script-src`
 * copied from `default-src` when neither does), unless that list already lets every inline
 * script run ('unsafe-inline' with no hash or nonce beside it: a hash would switch it off).
 * A policy restricting no scripts is left as it is.
 */
export function withScriptHash(directives: ReadonlyMap<string, readonly string[]>, hash: string): Map<string, readonly string[]> {
  const result = new Map(directives);
  const governing = ["script-src-elem", "script-src"].filter((name) => result.has(name));
  if (governing.length === 0) {
    const fallback = result.get("default-src");
    if (fallback === undefined) return result;
    result.set("script-src", fallback);
    governing.push("script-src");
  }
  for (const name of governing) {
    const sources = result.get(name) as readonly string[];
    if (allowsAnyInline(sources)) continue;
    result.set(name, [...sources.filter((source) => source !== "'none'"), hash]);
  }
  return result;
}

/**
 * The hash sources (`'sha256-…'`) of the inline scripts in `html`: each `<script>` without a
 * `src`, hashed over its text as written (fw's own snippets hold no character references).
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const [, attributes, text] of html.matchAll(/<script\b([^>]*)>([^]*?)<\/script>/gi)) {
    if (/\ssrc\s*=/i.test(attributes as string)) continue;
    hashes.push(`'sha256-${createHash("sha256").update(text as string, "utf8").digest("base64")}'`);
  }
  return hashes;
}

/** The `X-Frame-Options` that says what `frame-ancestors` says, for browsers older than CSP 2; undefined when it cannot. */
export function frameOptionsOf(directives: ReadonlyMap<string, readonly string[]> | undefined): string | undefined {
  if (directives === undefined) return "DENY"; // no policy: the frame guard stays
  const ancestors = directives.get("frame-ancestors");
  if (ancestors === undefined) return undefined;
  if (ancestors.length === 0 || (ancestors.length === 1 && ancestors[0] === "'none'")) return "DENY";
  if (ancestors.length === 1 && ancestors[0] === "'self'") return "SAMEORIGIN";
  return undefined;
}

function allowsAnyInline(sources: readonly string[]): boolean {
  return sources.includes("'unsafe-inline'") && !sources.some((source) => /^'(nonce-|sha256-|sha384-|sha512-|strict-dynamic')/i.test(source));
}

/** A policy's text as directives. A directive named twice is refused: browsers would keep the first and drop the other unread. */
function parsedPolicy(text: string): Map<string, readonly string[]> {
  const directives = new Map<string, readonly string[]>();
  for (const part of text.split(";")) {
    const [name, ...sources] = part.trim().split(/[ \t]+/);
    if (name === undefined || name === "") continue;
    const lower = name.toLowerCase();
    checkName(lower);
    if (directives.has(lower)) throw new BootError(`${SETTING} names ${lower} twice; browsers ignore the second: write its sources once.`);
    directives.set(lower, sources);
  }
  if (directives.size === 0) throw new BootError(`${SETTING} is an empty policy: write its directives, or false to send none.`);
  return directives;
}

function checked(directives: Map<string, readonly string[]>): Map<string, readonly string[]> {
  for (const [name, sources] of directives) {
    for (const source of sources) checkSource(name, source);
    if (sources.includes("'none'") && sources.length > 1) {
      throw new BootError(`${SETTING}: ${name} lists 'none' beside other sources, and browsers ignore 'none' then: write ['none'] alone, or drop it.`);
    }
  }
  return directives;
}

function checkName(name: string): void {
  if (KNOWN.has(name)) return;
  const spelt = name.replace(/_/g, "-").replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const hint = KNOWN.has(spelt) ? ` (directives are written lower-case with hyphens: "${spelt}")` : "";
  throw new BootError(`${SETTING}: ${JSON.stringify(name)} is not a Content-Security-Policy directive${hint}; browsers would ignore it. Known: ${[...KNOWN].join(", ")}.`);
}

function checkSource(name: string, source: unknown): void {
  if (typeof source !== "string" || !/^[\x21-\x7e]+$/.test(source) || /[;,]/.test(source)) {
    throw new BootError(`${SETTING}: ${name} has the source ${describe(source)}; a source is one word of printable ASCII without ";" or "," (a host, a scheme like https:, or a quoted keyword like 'self').`);
  }
  if (KEYWORDS.test(source)) {
    throw new BootError(`${SETTING}: ${name} lists ${source} without quotes, which browsers read as a host named ${JSON.stringify(source)}: write "'${source}'".`);
  }
}

function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : Array.isArray(value) ? "an array" : value === null ? "null" : typeof value;
}
