// An app with a WebSocket route, booted from the built runtime in its own process: `/loaded`
// says whether the `ws` package is in this process's module cache.
import { createRequire } from "node:module";
import { HttpApp, Ok, Route, RouteTable } from "../../../dist/runtime/index.js";

const cache = createRequire(import.meta.url).cache;
const wsLoaded = () => Object.keys(cache).some((file) => /[\\/]node_modules[\\/]ws[\\/]/.test(file));

const routes = RouteTable.of(
  Route.api({ method: "GET", path: "/loaded", handler: () => Ok(wsLoaded() ? "ws loaded" : "ws not loaded") }),
  Route.ws("/echo", { message: (connection, text) => connection.send(`echo ${text}`) }),
);
process.exitCode = await new HttpApp({ routes, accessLog: false }).main();
