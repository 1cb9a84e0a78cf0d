// fw through its public API (dist/runtime/index.js after `npm run build`): HttpApp + Route +
// RouteTable, FW_SECRET from the environment, access log off (unless FW_BENCH_ACCESS_LOG=1), production boot (`main([])`).
import { FromPath, HttpApp, InMemoryStore, NotFound, Ok, Redirect, Resource, Route, RouteTable } from "../../dist/runtime/index.js";
import * as pages from "../.work/servers/fw-pages.js";
import { HELLO, POSTS } from "./page.mjs";

// The session page and the layout are JSX (fw-pages.tsx), compiled with fw's JSX pre-renderer by
// `tspc -p bench/servers` into bench/.work/servers (the bench's build step does it).
const postPage = (request) => pages.postPage(POSTS, request);
const layout = pages.layout;

// FW_TEXT_ROUTE picks what `GET /` is: "api" (Route.api: no session, no cookie, like the raw
// peer) or "browser" (Route.get: a browser route, so fw reads the session cookie, and on a
// request without one mints a CSRF token and answers Set-Cookie, as spec 5.8 asks).
const hello =
  process.env.FW_TEXT_ROUTE === "browser"
    ? Route.get("/", () => Ok(HELLO))
    : Route.api({ method: "GET", path: "/", handler: () => Ok(HELLO) });

// A derived resource, as the transformer would write its ModelSpec for
//   interface Task { id: Id<Task>; title: string; notes: LongText; done: boolean }
// (typia's validator written by hand here: the bench's Index page never validates). Its Index
// page lists the store's first 50 rows, the page size, in a table with a link per row.
const taskSpec = {
  name: "Task",
  fqn: "models.Task",
  path: "/tasks",
  key: "id",
  fields: [
    { name: "title", label: "Title", input: "text", optional: false, describe: "text" },
    { name: "notes", label: "Notes", input: "textarea", optional: false, describe: "text" },
    { name: "done", label: "Done", input: "checkbox", optional: false, describe: "yes or no" },
  ],
  validate: (input) =>
    typeof input === "object" && input !== null && typeof input.title === "string" && typeof input.notes === "string" && typeof input.done === "boolean"
      ? { success: true, data: input }
      : { success: false, errors: [{ path: "$input", expected: "Task", value: input }] },
  decodeKey: FromPath.int,
};
const tasks = new InMemoryStore("id");
for (let i = 1; i <= 60; i++) {
  await tasks.insert({ title: `Task #${i}: "measure" <twice> & cut once`, notes: `Notes for task ${i}, with a <tag> & quotes " to escape.`, done: i % 3 === 0 });
}

const routes = RouteTable.of(
  hello,
  // Signs "ada" in: the reply's cookie (with the CSRF token minted on this first visit) is what
  // every page request of the bench sends back.
  Route.get("/login", (request) => Ok("signed in").withSession(request.session.set("user", "ada"))),
  Route.get("/posts/:id", postPage, { params: { id: FromPath.int } }),
  // A form POST: CSRF checked by fw before the handler runs; post/redirect/get with a flash.
  Route.post(
    "/posts/:id/comments",
    (request) => {
      const text = request.form.get("text") ?? "";
      if (text.trim() === "") throw new NotFound();
      return Redirect(`/posts/${request.params.id}`).withSession(request.session.flash("notice", "Thanks for your comment."));
    },
    { params: { id: FromPath.int } },
  ),
  ...Resource.routes(taskSpec, tasks),
);

// FW_BENCH_ACCESS_LOG=1 writes the access log (bench/ops.mjs: JSON against text, FW_LOG_FORMAT).
process.exitCode = await new HttpApp({ routes, layout, accessLog: process.env.FW_BENCH_ACCESS_LOG === "1" }).main([]);
