// `node --import ./log-loads.mjs app.mjs`: prints `loaded <url>` on stderr for every module the
// app loads (ESM through the hook; CommonJS packages such as ws by their files).
import { register } from "node:module";
import Module from "node:module";

register(new URL("./log-loads-hooks.mjs", import.meta.url));
const load = Module._load;
// Module._load is CommonJS's internal loader: the one place every require() passes.
Module._load = function (request, parent, isMain) {
  const loaded = load.apply(this, arguments);
  try {
    process.stderr.write(`loaded ${Module._resolveFilename(request, parent, isMain)}\n`);
  } catch {
    // builtins resolve to themselves; nothing to report
  }
  return loaded;
};
