import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { BUILD_TIMEOUT_MS } from "./tspc.js";
import { connect, type Client } from "./ws-client.js";

const FW = resolve("bin/fw.js");

/** A running `fw dev` and what it printed, with waits driven by its output. */
export interface DevServer {
  readonly child: ChildProcess;
  /** stdout and stderr, interleaved as they arrived. */
  output(): string;
  /**
   * A promise for the URL of the next "ready on" line printed after this call (the app
   * started or restarted and listens).
   */
  nextReady(): Promise<string>;
  /** Resolves once the output matches `pattern` (now or later). */
  printed(pattern: RegExp): Promise<void>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `node bin/fw.js dev --project <dir>` on an ephemeral port (fw dev keeps it across
 * restarts); `env` adds to the environment (a `DATABASE_URL`).
 */
export function startDev(dir: string, args: readonly string[] = [], env: Record<string, string> = {}): DevServer {
  const child = spawn(process.execPath, [FW, "dev", "--project", dir, ...args], {
    env: { ...process.env, PORT: "0", FW_SECRET: undefined, ...env },
  });
  let output = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    output += chunk.toString();
    for (const listener of [...listeners]) listener();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<number | null>((done) => child.on("close", done));
  const readyLines = (): string[] => [...output.matchAll(/fw dev: ready on (http:\/\/\S+)/g)].map((m) => m[1] as string);
  const when = <T>(check: () => T | undefined): Promise<T> =>
    new Promise((done, fail) => {
      const listener = (): void => {
        const value = check();
        if (value === undefined) return;
        listeners.delete(listener);
        done(value);
      };
      listeners.add(listener);
      void exited.then(() => fail(new Error(`fw dev exited:\n${output}`)));
      listener();
    });
  return {
    child,
    output: () => output,
    nextReady: () => {
      const seen = readyLines().length;
      return when(() => readyLines()[seen]);
    },
    printed: (pattern) => when(() => (pattern.test(output) ? true : undefined)).then(() => {}),
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** The boot id of the server that served a dev page (the reload client names it). */
export function bootOf(html: string): string {
  const boot = /data-fw-boot="([0-9a-f]+)"/.exec(html)?.[1];
  if (boot === undefined) throw new Error(`no reload client in the page:\n${html}`);
  return boot;
}

/**
 * Makes `change`, then waits for what the browser's reload client would see: either the server says
 * `reload` on the open socket, or the socket closes (the app restarted), and the client
 * reconnects to the new server, which says `reload` to a page from an older boot. Resolves
 * with the socket that is open afterwards.
 */
export async function reloaded(socket: Client, dev: DevServer, url: string, boot: string, change: () => void): Promise<Client> {
  const restarted = dev.nextReady();
  restarted.catch(() => {}); // not awaited when the socket is told: its rejection on exit is no error
  change();
  const told = await Promise.race([socket.next().then((text) => ({ text })), socket.closed.then(() => undefined)]);
  if (told !== undefined) {
    if (told.text !== "reload") throw new Error(`the reload socket said ${JSON.stringify(told.text)}`);
    return socket;
  }
  await restarted;
  const again = await connect(url, `/fw/reload?boot=${boot}`);
  const text = await again.next();
  if (text !== "reload") throw new Error(`the new server said ${JSON.stringify(text)} to a page of an older boot`);
  return again;
}

/**
 * Fails with the dev server's output when `promise` does not settle in time: a hang guard. By
 * default the time of a build (each step of fw dev waits for one), on a loaded machine too.
 */
export function guarded<T>(promise: Promise<T>, dev: DevServer, what: string, ms = BUILD_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what}: nothing within ${ms} ms. fw dev printed:\n${dev.output()}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
