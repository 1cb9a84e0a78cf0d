// The last step of `npm run build:fw`: the template of a new embedded database
// (runtime/db/pglite-template.ts) for the installed PGlite, written into dist/ unless it is there.
import { fileURLToPath } from "node:url";
import { buildTemplate } from "../dist/runtime/db/pglite-template.js";

const done = await buildTemplate(fileURLToPath(new URL("../dist/runtime/db/", import.meta.url)));
if (done !== undefined) console.log(done);
