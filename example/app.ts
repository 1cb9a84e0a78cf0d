import { HttpApp, Route, RouteTable } from "fw";
import { Guestbook } from "./guestbook.js";
import { layout } from "./layout.js";
import { guestbook, home } from "./pages.js";

/**
 * The example app. Its table is built by hand for now; the transformer will derive it from
 * the files under src/app/.
 */
export function exampleApp(): HttpApp {
  const pages = guestbook(new Guestbook());
  const routes = RouteTable.of(
    Route.get("/", home, { source: "example/pages.tsx#home" }),
    Route.get("/guestbook", pages.index, { source: "example/pages.tsx#guestbook.index" }),
    Route.post("/guestbook", pages.create, { source: "example/pages.tsx#guestbook.create" }),
    Route.get("/guestbook/:id", pages.show, { params: pages.idDecoder, source: "example/pages.tsx#guestbook.show" }),
    Route.api({ method: "GET", path: "/api/entries", handler: pages.api, source: "example/pages.tsx#guestbook.api" }),
  );
  return new HttpApp({ routes, layout });
}
