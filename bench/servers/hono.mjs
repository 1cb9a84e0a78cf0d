// Hono 4 on @hono/node-server doing the same work as fw's routes.
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { HELLO, POSTS, readSession, renderPost } from "./page.mjs";

const key = Buffer.from(process.env.FW_SECRET ?? "", "utf8");
const INTEGER = /^-?(0|[1-9][0-9]*)$/;

const app = new Hono();
app.get("/", (c) => c.text(HELLO));
app.get("/posts/:id", (c) => {
  const raw = c.req.param("id");
  const post = INTEGER.test(raw) ? POSTS.get(Number(raw)) : undefined;
  if (post === undefined) return c.text("not found", 404);
  const session = readSession(c.req.header("cookie"), key);
  const csrf = session?._csrf;
  if (typeof csrf !== "string") return c.text("no session", 403);
  return c.html(renderPost(post, typeof session.user === "string" ? session.user : undefined, csrf));
});
const server = serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: "127.0.0.1" }, (info) =>
  console.log(`listening on ${info.port}`),
);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
