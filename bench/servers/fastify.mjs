// Fastify 5 doing the same work as fw's routes (logger off, the default).
import Fastify from "fastify";
import { HELLO, POSTS, readSession, renderPost } from "./page.mjs";

const key = Buffer.from(process.env.FW_SECRET ?? "", "utf8");
const INTEGER = /^-?(0|[1-9][0-9]*)$/;

const app = Fastify({ logger: false });
app.get("/", (request, reply) => {
  reply.type("text/plain; charset=utf-8").send(HELLO);
});
app.get("/posts/:id", (request, reply) => {
  const raw = request.params.id;
  const post = INTEGER.test(raw) ? POSTS.get(Number(raw)) : undefined;
  if (post === undefined) return reply.code(404).type("text/plain; charset=utf-8").send("not found");
  const session = readSession(request.headers.cookie, key);
  const csrf = session?._csrf;
  if (typeof csrf !== "string") return reply.code(403).type("text/plain; charset=utf-8").send("no session");
  reply.type("text/html; charset=utf-8").send(renderPost(post, typeof session.user === "string" ? session.user : undefined, csrf));
});
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
console.log(`listening on ${process.env.PORT}`);
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
