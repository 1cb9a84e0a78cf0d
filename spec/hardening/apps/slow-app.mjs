// A small app for spec/hardening/shutdown-load.test.ts, run as a child process against the built
// fw (`npm run build` first): GET /slow waits, then answers a large body; GET /fast answers at once.
import { HttpApp, Ok, Route, RouteTable } from "fw";

const waitMs = Number(process.env["SLOW_MS"] ?? "1000");
const bodyBytes = Number(process.env["SLOW_BYTES"] ?? String(200 * 1024));
const graceMs = Number(process.env["GRACE_MS"] ?? "5000");

const routes = RouteTable.of(
  Route.get("/slow", async () => {
    process.stdout.write("entered /slow\n");
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    return Ok("z".repeat(bodyBytes));
  }),
  Route.get("/fast", () => Ok("fast")),
);

process.exitCode = await new HttpApp({ routes, accessLog: false, shutdownGraceMs: graceMs }).main();
