// Whether a build's output is still what its inputs make: scripts/build.mjs asks it before each
// target, so `npm start` and `npm run dev` rebuild nothing when nothing changed.
//
// A target's inputs are hashed (every file's path and contents, not their modification times: a
// `git checkout` or a copy that rewrites a file unchanged does not make it stale), and its last
// successful build leaves a stamp in its output folder: that hash, and a hash of each file the
// build wrote. The output is fresh while the inputs' hash is the same and every one of those
// files is there with the same contents (a deleted or hand-edited output is rebuilt; one written
// again unchanged, as `fw dev`'s compiler does at its start, is not; files added later, such as a
// bundle, do not count).
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The stamp's name, in the output folder. */
export const STAMP = ".build-stamp.json";

/** Generated or installed folders never count as inputs. */
const SKIPPED = new Set(["node_modules", "dist", ".fw", ".git"]);

/** Every file under `path` (or `path` itself), relative to `root`, sorted; folders named in `skipped` left out. */
function files(root, path, skipped) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { withFileTypes: true })
    .filter((entry) => !skipped.has(entry.name))
    .flatMap((entry) => (entry.isDirectory() ? files(root, join(path, entry.name), skipped) : [join(path, entry.name)]))
    .sort();
}

export function inputHash(root, inputs, before = "") {
  const hash = createHash("sha256").update(before);
  for (const path of inputs.flatMap((input) => files(root, input, SKIPPED))) hash.update(`${path}\0`).update(readFileSync(join(root, path))).update("\0");
  return hash.digest("hex");
}

export function staleness(root, out, hash) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, out, STAMP), "utf8"));
  } catch {
    return "no earlier build";
  }
  if (stamp.inputs !== hash) return "its sources changed";
  for (const [path, hash] of Object.entries(stamp.outputs ?? {})) {
    let contents;
    try {
      contents = readFileSync(join(root, path));
    } catch {
      return `${path} is missing`;
    }
    if (fileHash(contents) !== hash) return `${path} changed since`;
  }
  return undefined;
}

function fileHash(contents) {
  return createHash("sha256").update(contents).digest("hex").slice(0, 32);
}

export function forgetBuild(root, out) {
  rmSync(join(root, out, STAMP), { force: true });
}

export function stampBuild(root, out, hash) {
  const written = files(root, out, new Set()).filter((path) => !path.endsWith(STAMP));
  const outputs = Object.fromEntries(written.map((path) => [path, fileHash(readFileSync(join(root, path)))]));
  writeFileSync(join(root, out, STAMP), `${JSON.stringify({ inputs: hash, outputs })}\n`);
}
