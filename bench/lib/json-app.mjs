// The fw app of the JSON bench (bench/servers/json-app): copied to bench/.work/json-app and built
// there with tspc, fw's transformer and typia, as an app is built (`fw` resolves through
// bench/.work/node_modules/fw, a link to this checkout).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { linkFw, tsconfig } from "./app-gen.mjs";
import { BENCH, log, ROOT, WORK } from "./util.mjs";

export const JSON_APP = join(WORK, "json-app");
/** The built app's entry, and the posts every side answers. */
export const JSON_APP_MAIN = join(JSON_APP, "dist", "main.js");
export const JSON_APP_POSTS = join(JSON_APP, "dist", "posts.js");

export function buildJsonApp() {
  linkFw();
  rmSync(JSON_APP, { recursive: true, force: true });
  mkdirSync(JSON_APP, { recursive: true });
  cpSync(join(BENCH, "servers", "json-app", "src"), join(JSON_APP, "src"), { recursive: true });
  writeFileSync(join(JSON_APP, "package.json"), `{ "private": true, "type": "module" }\n`);
  writeFileSync(join(JSON_APP, "tsconfig.json"), JSON.stringify(tsconfig({ fw: true, typia: true }), null, 2) + "\n");
  log("building the JSON bench's fw app: tspc -p bench/.work/json-app");
  const result = spawnSync(process.execPath, [join(ROOT, "node_modules", "ts-patch", "bin", "tspc.js"), "-p", JSON_APP], { cwd: ROOT, encoding: "utf8", timeout: 300_000 });
  if (result.status !== 0) throw new Error(`tspc -p bench/.work/json-app failed (run npm run build first?):\n${result.stdout}${result.stderr}`);
}
