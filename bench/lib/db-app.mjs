// The fw app of the database bench (bench/servers/db-app): copied to bench/.work/db-app and built
// there with tspc, fw's transformer, its JSX pre-renderer and typia, as an app is built (`fw`
// resolves through bench/.work/node_modules/fw, a link to this checkout).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { linkFw, tsconfig } from "./app-gen.mjs";
import { BENCH, log, ROOT, WORK } from "./util.mjs";

export const DB_APP = join(WORK, "db-app");
/** The built app's entry. */
export const DB_APP_MAIN = join(DB_APP, "dist", "main.js");

/**
 * The layout links to a home page and a stylesheet the bench does not serve (the peer's pages link to
 * them too, and the two sides' bytes must match): declared to fw's path check (TS91050) as answered
 * outside the table, as an app declares what a proxy in front of it serves.
 */
const DB_APP_EXTRA_ROUTES = ["GET /", "GET /style.css"];

/** The policy rows' app (bench/servers/policy-app, issue 41): memos under `owned`, drafts under a policy with roles and teams. */
export const POLICY_APP = join(WORK, "policy-app");
export const POLICY_APP_MAIN = join(POLICY_APP, "dist", "main.js");

export function buildDbApp() {
  buildApp("db-app", DB_APP, DB_APP_EXTRA_ROUTES);
  buildApp("policy-app", POLICY_APP, undefined);
}

function buildApp(name, dir, extraRoutes) {
  linkFw();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(join(BENCH, "servers", name, "src"), join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "package.json"), `{ "private": true, "type": "module" }\n`);
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig({ fw: true, typia: true, extraRoutes }), null, 2) + "\n");
  log(`building the database bench's fw app: tspc -p bench/.work/${name}`);
  const result = spawnSync(process.execPath, [join(ROOT, "node_modules", "ts-patch", "bin", "tspc.js"), "-p", dir], { cwd: ROOT, encoding: "utf8", timeout: 300_000 });
  if (result.status !== 0) throw new Error(`tspc -p bench/.work/${name} failed (run npm run build first?):\n${result.stdout}${result.stderr}`);
}
