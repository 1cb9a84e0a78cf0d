// fw with a WebSocket route, for the memory part: RSS with N idle connections.
import { HttpApp, Ok, Route, RouteTable } from "../../dist/runtime/index.js";

const routes = RouteTable.of(
  Route.get("/", () => Ok("Hello, World!")),
  Route.ws("/ws", { message() {} }),
);
process.exitCode = await new HttpApp({ routes, accessLog: false }).main([]);
