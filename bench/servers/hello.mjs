// The smallest node:http server: the memory baseline (idle RSS).
import { createServer } from "node:http";

const server = createServer((req, res) => {
  res.writeHead(200, ["content-type", "text/plain; charset=utf-8"]);
  res.end("Hello, World!");
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`listening on ${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)).closeAllConnections());
