// fw/live's pages for the bench's `live` part (bench/live.mjs): the counter at /counter and the
// 50-row list at /tasks (bench/servers/live-pages.tsx, compiled into bench/.work/servers), each
// with its socket WS /fw/live/<id>, and the client GET /fw/live.js, mounted with fw/live's route
// functions as the generated table mounts them. Production boot, access log off.
import { HttpApp, RouteTable } from "../../dist/runtime/index.js";
import { liveClientRoute, livePageRoutes, liveSocketRoute } from "../../dist/runtime/live/index.js";
import * as pages from "../.work/servers/live-pages.js";

const source = "bench/servers/live-pages.tsx";
const mounts = [
  [pages.counter, { id: "counter", path: "/counter", capabilities: {}, source }],
  [pages.list, { id: "tasks", path: "/tasks", capabilities: {}, source }],
];

const routes = RouteTable.of(
  ...mounts.flatMap(([page, mount]) => livePageRoutes(page, mount)),
  ...mounts.map(([page, mount]) => liveSocketRoute(page, mount)),
  liveClientRoute(),
);

process.exitCode = await new HttpApp({ routes, layout: pages.layout, accessLog: false }).main([]);
