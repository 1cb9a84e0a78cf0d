import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A throwaway PostgreSQL cluster under a temp dir: started by a test file, stopped after. */
export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust authentication, loopback only). */
  readonly url: string;
  /** Stops the server (fast shutdown: open connections are cut). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  destroy(): Promise<void>;
}

/** The directory of PostgreSQL's server binaries (`PG_BIN`, else the newest /usr/lib/postgresql/N/bin), or undefined. */
export function postgresBin(): string | undefined {
  const given = process.env["PG_BIN"];
  if (given !== undefined && existsSync(join(given, "initdb"))) return given;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
}

let told = false;
/** Prints, once per test file, the one line that says the PostgreSQL suites are skipped. */
export function noPostgresNotice(): void {
  if (told) return;
  told = true;
  console.log("PostgreSQL not found (no /usr/lib/postgresql/*/bin/initdb, PG_BIN unset): the PostgreSQL suites are skipped; PGlite runs.");
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

/**
 * initdb + pg_ctl in a fresh temp dir, on a free loopback port. PostgreSQL refuses to run as
 * root: as root, the directory is given to the `postgres` user (Debian's package creates it)
 * and the binaries run through `runuser -u postgres --`.
 */
export async function startCluster(bin: string): Promise<PostgresCluster> {
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? { uid: Number((await run("id", ["-u", "postgres"])).stdout.trim()), gid: Number((await run("id", ["-g", "postgres"])).stdout.trim()) } : undefined;
  const dir = mkdtempSync(join(tmpdir(), "fw-pg-"));
  const data = join(dir, "data");
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  const exec = (tool: string, args: readonly string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, tool), ...args]) : run(join(bin, tool), [...args]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`;
  const start = async () => void (await exec("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"]));
  const stop = async () => void (await exec("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]));
  try {
    await exec("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"]);
    await start();
  } catch (error) {
    // A cluster that did not start leaves no folder: stop what may have started, then remove it.
    await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let up = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await stop();
      up = false;
    },
    start: async () => {
      await start();
      up = true;
    },
    destroy: async () => {
      if (up) await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
