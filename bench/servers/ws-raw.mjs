// Reference for the WebSocket memory row: node:http + the `ws` package, nothing else.
import { createServer } from "node:http";
import { WebSocketServer } from "../../node_modules/ws/wrapper.mjs";

const server = createServer((req, res) => {
  res.writeHead(200, ["content-type", "text/plain; charset=utf-8"]);
  res.end("Hello, World!");
});
const wss = new WebSocketServer({ server, path: "/ws", perMessageDeflate: false });
wss.on("connection", (socket) => socket.on("message", () => {}));
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`listening on ${server.address().port}`));
process.on("SIGTERM", () => {
  for (const client of wss.clients) client.terminate();
  server.close(() => process.exit(0)).closeAllConnections();
});
