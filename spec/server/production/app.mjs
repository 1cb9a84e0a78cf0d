// A small app for spec/server/production-mode.test.ts, run as a child process against the built
// fw (`npm run build` first): GET /boom throws, so its 500 page can be read in each mode.
import { HttpApp, Ok, Route, RouteTable } from "fw";

const routes = RouteTable.of(
  Route.get("/", () => Ok("home")),
  Route.get("/boom", () => {
    throw new Error("kaboom-secret-detail");
  }),
);

process.exitCode = await new HttpApp({ routes, accessLog: false }).main();
