/**
 * Whether `db reset`, which drops every table, may run (issue 28): the embedded database (one
 * app's own directory) resets freely; a PostgreSQL server only when whoever runs it confirms —
 * by typing the database's name at a terminal, or with `--force` where there is no terminal —
 * and one on another machine only when told so as well (`--remote`): an unset NODE_ENV must
 * not be all that stands between a typo in DATABASE_URL and a production database.
 */

/** The flags `db reset` takes. */
export interface ResetFlags {
  /** Confirmed on the command line: no question asked. */
  readonly force: boolean;
  /** The server is on another machine, and that is meant. */
  readonly remote: boolean;
}

/** What `db reset` does: go on, ask for the database's name first, or refuse saying why and how. */
export type ResetVerdict = { readonly go: true } | { readonly ask: string } | { readonly refuse: string };

export const RESET_USAGE = "usage: <app> db reset [--force] [--remote]";

/** Reads `db reset`'s arguments; a string is the usage error. */
export function parseResetFlags(args: readonly string[]): ResetFlags | string {
  let force = false;
  let remote = false;
  for (const arg of args) {
    if (arg === "--force") force = true;
    else if (arg === "--remote") remote = true;
    else return `fw: db reset takes --force and --remote, not ${JSON.stringify(arg)}\n${RESET_USAGE}`;
  }
  return { force, remote };
}

export interface ResetTarget {
  /** The PostgreSQL URL (password included: only its host and database are read); undefined for the embedded database. */
  readonly postgresUrl: string | undefined;
  /** For messages: "PostgreSQL at postgres://app@db.example:5432/app" (no password). */
  readonly description: string;
  /** The environment pg reads a missing host from (`PGHOST`). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The verdict for resetting `target` with `flags`, where `interactive` says a person can be asked (stdin is a terminal). */
export function resetVerdict(target: ResetTarget, flags: ResetFlags, interactive: boolean): ResetVerdict {
  const url = target.postgresUrl;
  if (url === undefined) return { go: true };
  const server = serverOf(url, target.env);
  const how = `db reset --force${server.local ? "" : " --remote"}`;
  if (!server.local && !flags.remote) {
    return {
      refuse:
        `fw: db reset drops every table of ${target.description}, a server on another machine (${server.host}), so it refuses unless told that is meant. ` +
        `Nothing was changed. If that really is the database to empty, run \`${how}\`.`,
    };
  }
  if (flags.force) return { go: true };
  if (interactive) return { ask: server.database };
  return {
    refuse:
      `fw: db reset drops every table of ${target.description} and asks first, but there is no terminal to ask in. ` +
      `Nothing was changed. Run it in a terminal to confirm, or pass --force: \`${how}\`.`,
  };
}

/** The host a PostgreSQL URL connects to, whether it is this machine, and the database's name. */
export function serverOf(url: string, env: Readonly<Record<string, string | undefined>> = {}): { readonly host: string; readonly local: boolean; readonly database: string } {
  // `postgres://user@/db?host=/run/postgresql` (a socket, no host) is pg's but not the URL parser's.
  const parsed = readUrl(url) ?? readUrl(url.replace("@/", "@fw-no-host/"));
  // An unreadable URL cannot be shown to be this machine's: treated as another's.
  if (parsed === undefined) return { host: "a host fw cannot read from the URL", local: false, database: "" };
  const named = parsed.hostname === "fw-no-host" ? "" : parsed.hostname;
  const host = decodeURIComponent(parsed.searchParams.get("host") ?? (named || env["PGHOST"] || ""));
  const user = decodeURIComponent(parsed.username) || env["PGUSER"] || "";
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, "")) || env["PGDATABASE"] || user;
  return { host: host === "" ? "the local socket" : host, local: isLocalHost(host), database };
}

function readUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** No host (pg's default socket), a socket directory, localhost, 127.0.0.0/8 or ::1. */
export function isLocalHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "" || bare.startsWith("/") || bare === "localhost" || bare.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(bare) || bare === "::1" || bare === "0:0:0:0:0:0:0:1";
}
