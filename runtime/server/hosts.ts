import { BootError } from "../routing/boot-error.js";

/** What `dev` answers for when the app names no hosts: the loopback names, with any port. */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze(["localhost", "127.0.0.1", "[::1]"]);

/** The environment variable that lists allowed hosts, comma-separated, when the app sets none. */
export const ALLOWED_HOSTS_ENV = "FW_ALLOWED_HOSTS";

/**
 * Which names the `Host` header may carry (docs/security.md). A page a victim's browser loads
 * from an attacker's name can have that name resolve to this server (DNS rebinding) and then
 * read its answers as same-origin: only a server that refuses hosts it does not know stops it.
 * Entries are host names without a port, case-insensitive: `example.com` (that name),
 * `.example.com` (it and every subdomain), `[::1]` (an IPv6 address), or `*` (any host).
 */
export class HostPolicy {
  private constructor(
    private readonly exact: ReadonlySet<string>,
    private readonly suffixes: readonly string[],
    /** The list as given, for messages. */
    readonly described: string,
  ) {}

  /** Checks each entry, naming a bad one and the fix; undefined when the list allows any host. */
  static of(entries: readonly string[], setting: string): HostPolicy | undefined {
    if (entries.length === 0) throw new BootError(`${setting} is empty: list the host names this app answers for, or "*" for any.`);
    const exact = new Set<string>();
    const suffixes: string[] = [];
    for (const entry of entries) {
      const name = entry.trim().toLowerCase();
      if (name === "*") return undefined;
      checkEntry(name, entry, setting);
      const bare = name.endsWith(".") ? name.slice(0, -1) : name;
      if (bare.startsWith(".")) suffixes.push(bare);
      else exact.add(bare);
    }
    return new HostPolicy(exact, suffixes, entries.join(", "));
  }

  /**
   * The last `Host` header allowed, as sent: nearly every request names the same host as the one
   * before it, and comparing two short strings costs less than parsing one (its port, its case).
   */
  private lastAllowed: string | undefined = undefined;

  /** Whether a request's `Host` header (name and optional port) names an allowed host. */
  allows(host: string | undefined): boolean {
    if (host === undefined) return false;
    if (host === this.lastAllowed) return true;
    const allowed = this.allowsName(hostName(host));
    if (allowed) this.lastAllowed = host;
    return allowed;
  }

  private allowsName(name: string | undefined): boolean {
    if (name === undefined) return false;
    if (this.exact.has(name)) return true;
    for (const suffix of this.suffixes) {
      if (name.endsWith(suffix) || name === suffix.slice(1)) return true;
    }
    return false;
  }
}

/** The `allowedHosts` list of an env value: comma-separated, blanks skipped; undefined when unset. */
export function hostsFromEnv(value: string | undefined): readonly string[] | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  return value.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
}

const NAME = /^\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/;
const BRACKETED = /^\[[0-9a-f:.]+\]$/;

function checkEntry(name: string, entry: string, setting: string): void {
  if (NAME.test(name) || BRACKETED.test(name)) return;
  const hint = /:\d+$/.test(name) ? " Leave the port out: every port of an allowed host is allowed." : "";
  throw new BootError(
    `${setting}: ${JSON.stringify(entry)} is not a host name. Write "example.com", ".example.com" (with its subdomains), ` +
      `"[::1]" or "*".${hint}`,
  );
}

/** A Host header's name, lower-cased, without its port; undefined when it is no host at all. */
function hostName(host: string): string | undefined {
  let end = host.length;
  if (host.charCodeAt(0) === 91 /* "[" */) {
    end = host.indexOf("]") + 1;
    if (end === 0) return undefined;
  } else {
    const colon = host.indexOf(":");
    if (colon !== -1) end = colon;
  }
  if (end < host.length && (host.charCodeAt(end) !== 58 /* ":" */ || !/^:\d*$/.test(host.slice(end)))) return undefined;
  const name = host.slice(0, end).toLowerCase();
  // A trailing dot names the same host (`localhost.`).
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

/**
 * Whether a request carries more than one `Host` header. Node keeps only the first in
 * `headers`, while a proxy in front may have read another: such a request is ambiguous, so it
 * is refused (RFC 9112 section 3.2). Reads the raw list Node keeps anyway, without a copy.
 */
export function twoHosts(rawHeaders: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === 4 && (name === "Host" || name === "host" || name.toLowerCase() === "host")) {
      if (seen) return true;
      seen = true;
    }
  }
  return false;
}
