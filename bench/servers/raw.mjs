// The baseline: node:http written by hand, doing the same work as fw's routes.
import { createServer } from "node:http";
import { HELLO, POSTS, postIdOf, readSession, renderPost } from "./page.mjs";

const key = Buffer.from(process.env.FW_SECRET ?? "", "utf8");
const TEXT = "text/plain; charset=utf-8";
const HTML = "text/html; charset=utf-8";

const server = createServer((req, res) => {
  const q = req.url.indexOf("?");
  const path = q === -1 ? req.url : req.url.slice(0, q);
  if (req.method === "GET" && path === "/") {
    res.writeHead(200, ["content-type", TEXT, "content-length", String(Buffer.byteLength(HELLO))]);
    res.end(HELLO);
    return;
  }
  const id = req.method === "GET" ? postIdOf(path) : undefined;
  const post = id === undefined ? undefined : POSTS.get(id);
  if (post !== undefined) {
    const session = readSession(req.headers.cookie, key);
    const csrf = session?._csrf;
    if (typeof csrf !== "string") {
      // a first visit would mint a token and set the cookie; the bench always sends one
      res.writeHead(403, ["content-type", TEXT]);
      res.end("no session");
      return;
    }
    const html = renderPost(post, typeof session.user === "string" ? session.user : undefined, csrf);
    res.writeHead(200, ["content-type", HTML, "content-length", String(Buffer.byteLength(html))]);
    res.end(html);
    return;
  }
  res.writeHead(404, ["content-type", TEXT]);
  res.end("not found");
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`listening on ${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)).closeAllConnections());
