/**
 * fw/live — server-rendered pages that update over a socket (spec 4.6: `WS /fw/live/:page`,
 * `GET /fw/live.js`). An optional module: the HTTP core never imports it.
 */
export { live, LivePage, type FormInput, type LiveContext, type LiveFormProps, type LiveHandler, type LiveSpec, type LiveValues, type LiveView } from "./page.js";
export type { LiveMount } from "./mount.js";
export { livePageRoutes, liveSocketRoute, liveClientRoute } from "./routes.js";
export { publish, publishing } from "./topics.js";
