// The bench's servers: which script a side of bench/ab.mjs and bench/instructions.mjs runs (raw
// node:http, fw as built, fw builds kept by `node bench/ab.mjs snapshot <name>`), and signing in to fw's.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { WORK } from "./util.mjs";

/** Where `node bench/ab.mjs snapshot <name>` keeps a build. */
export const SNAPSHOTS = join(WORK, "ab");

/** The server script of a side: `raw`, `fw` (the current build), `fw@<name>` (a snapshot) or a script's path. */
export function scriptOf(side) {
  if (side === "raw") return join("bench", "servers", "raw.mjs");
  if (side === "fw") return join("bench", "servers", "fw.mjs");
  if (/\.[cm]?js$/.test(side)) return side; // a server script of one's own, for experiments
  const name = /^fw@(.+)$/.exec(side)?.[1];
  if (name === undefined) throw new Error(`unknown side ${JSON.stringify(side)}: raw, fw or fw@<snapshot>`);
  const script = join(SNAPSHOTS, name, "bench", "servers", "fw.mjs");
  const known = existsSync(SNAPSHOTS) ? readdirSync(SNAPSHOTS).join(", ") : "none";
  if (!existsSync(script)) throw new Error(`no snapshot ${JSON.stringify(name)} (have: ${known}); make one with: node bench/ab.mjs snapshot ${name}`);
  return script;
}

/** A session cookie (`fw_session=…`, "ada" signed in, a CSRF token) from fw's bench server at `baseUrl`. */
export async function signIn(baseUrl) {
  const cookie = (await fetch(`${baseUrl}/login`)).headers.get("set-cookie")?.split(";")[0];
  if (cookie === undefined) throw new Error(`${baseUrl}/login set no cookie`);
  return cookie;
}

/** The CSRF token a session cookie from `signIn` carries (its payload is base64url JSON, unsigned part first). */
export function csrfOf(cookie) {
  const payload = JSON.parse(Buffer.from(cookie.slice("fw_session=".length).split(".")[0], "base64url").toString("utf8"));
  const csrf = payload.e?._csrf;
  if (typeof csrf !== "string") throw new Error(`no CSRF token in the session cookie ${cookie}`);
  return csrf;
}
