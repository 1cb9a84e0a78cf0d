// The exporter's app (spec/ops/otlp-export.test.ts), booted from the built runtime in its own
// process: a page, and a page that makes a span of the app's own through @opentelemetry/api (the
// SDK's global tracer, which fw's exporter sends on as it sends fw's spans).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { trace } from "@opentelemetry/api";

const dist = join(dirname(fileURLToPath(import.meta.url)), "../../../dist/runtime");
const { HttpApp, Ok, Route, RouteTable } = await import(join(dist, "index.js"));

const routes = RouteTable.of(
  Route.get("/", (request) => Ok(`hello ${request.id}`)),
  Route.get("/own-span", async () => {
    const tracer = trace.getTracer("app-tracer", "2.0.0");
    await tracer.startActiveSpan("app work", { attributes: { "app.rows": 3, "app.ratio": 0.25 } }, async (span) => {
      await new Promise((done) => setTimeout(done, 1));
      span.addEvent("app event", { "app.step": "one" });
      span.end();
    });
    return Ok("worked");
  }),
);

process.exitCode = await new HttpApp({ routes }).main(process.argv.slice(2));
