// fw's bench pages (bench/servers/fw-pages.tsx) are JSX, compiled as an app's pages are: tspc with
// fw's JSX pre-renderer (bench/servers/tsconfig.json), into bench/.work/servers. `fw` resolves
// there through bench/.work/node_modules/fw, a link to this checkout.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { linkFw } from "./app-gen.mjs";
import { log, ROOT } from "./util.mjs";

export function buildBenchPages() {
  linkFw();
  log("building fw's bench pages: tspc -p bench/servers");
  const result = spawnSync(process.execPath, [join(ROOT, "node_modules", "ts-patch", "bin", "tspc.js"), "-p", "bench/servers"], { cwd: ROOT, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`tspc -p bench/servers failed (run npm run build first?):\n${result.stdout}${result.stderr}`);
}
