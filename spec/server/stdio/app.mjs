// Records whether process.stderr exists once an fw server listens: Node makes it on first use,
// and its socket code uses it when a connection closes. Prints the answer on fd 1 directly, so
// printing it makes no stream either.
import { writeSync } from "node:fs";

const made = { stdout: false, stderr: false };
for (const name of ["stdout", "stderr"]) {
  const original = Object.getOwnPropertyDescriptor(process, name);
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: original.enumerable,
    get() {
      made[name] = true;
      return original.get.call(process);
    },
  });
}
const { HttpApp, Ok, Route, RouteTable } = await import("../../../dist/runtime/index.js");
const routes = RouteTable.of(Route.api({ method: "GET", path: "/", handler: () => Ok("hi") }));
const running = await new HttpApp({ routes, accessLog: false, allowedHosts: ["*"] }).serve({ port: 0, host: "127.0.0.1" });
writeSync(1, `${JSON.stringify(made)}\n`);
await running.close();
