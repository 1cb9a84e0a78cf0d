// The json part's fw app (bench/json.mjs): production boot, access log off, as bench/servers/fw.mjs.
import { HttpApp } from "fw";
import { table } from "./.fw/routes.js";

process.exitCode = await new HttpApp({ routes: table(), accessLog: false }).main([]);
