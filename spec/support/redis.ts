import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Debian's redis-server (.ci/run installs it), or undefined. */
export const REDIS_SERVER = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((path) => existsSync(path));

let told = false;
/** Prints, once per test file, the one line that says the Redis suites are skipped. */
export function noRedisNotice(): void {
  if (told) return;
  told = true;
  console.log("redis-server not found (apt-get install redis-server): the Redis fan-out suites are skipped.");
}

/** A throwaway Redis on a loopback port: nothing saved to disk, stopped and started by the test. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Stops it (SIGTERM), as a restart or a crash would: connections drop. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? done(address.port) : fail(new Error("no port"))));
    });
  });
}

/** Resolves once something accepts connections on `port` (within 10 s). */
async function accepting(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((done) => {
      const socket = createConnection({ port, host: "127.0.0.1" }, () => {
        socket.end();
        done(true);
      });
      socket.on("error", () => done(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not accept connections on ${port} within 10 s`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** Starts redis-server (`bin`) in a temp folder on a free loopback port. */
export async function startRedis(bin: string): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), "fw-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn(bin, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--protected-mode", "yes"], { stdio: "ignore" });
    await accepting(port);
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    await new Promise<void>((done) => {
      running.once("exit", () => done());
      running.kill("SIGTERM");
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
