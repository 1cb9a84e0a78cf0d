import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Database } from "../db/database.js";
import { TestAppDatabase } from "./app-database.js";
import { TestClient } from "./client.js";
import { freshPostgres, type FreshDatabase } from "./fresh-postgres.js";
import { sentMails, waitForMail, type MailFilter, type SentMail } from "./mailbox.js";

export interface StartAppOptions {
  /** The built entry, relative to `cwd`. Default `dist/main.js`. */
  readonly main?: string;
  /** The app's directory, where it runs. Default: the working directory (npm runs tests from the app's root). */
  readonly cwd?: string;
  /** The program arguments. Default `["dev"]`: dev mode applies pending migrations to the fresh database and shows stacks on error pages. `[]` boots production. */
  readonly args?: readonly string[];
  /** More environment for the app (over the test's own). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Read the app's `.env` and `.env.local`. Default false: a test's app sees the test's
   * environment and `env` alone, as it would on CI, so a developer's own settings cannot make a
   * test pass on one machine only.
   */
  readonly envFiles?: boolean;
}

/** A running app, just for one test: its own process, port, secret and database. */
export interface TestApp {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** A new visitor: a client with an empty cookie jar. */
  client(): TestClient;
  /** What the app printed so far. */
  output(): { readonly out: string; readonly err: string };
  /**
   * Every message the app sent through fw/mail so far, oldest first (read from its mailbox:
   * `FW_MAILBOX`, a folder of this test's own), optionally those to one address only.
   */
  mails(filter?: { readonly to?: string }): Promise<SentMail[]>;
  /**
   * The first message to `to` (with this subject, when given) the app sent, waiting for it: fw/auth
   * sends its mail after the answer. Rejects after `timeoutMs` (default 10 s) naming what it
   * waited for and listing what the mailbox holds.
   */
  mail(filter: MailFilter): Promise<SentMail>;
  /**
   * The app's database (fw/db), reached from the test's process: the same rows the app reads.
   * `startApp` makes it the test process's database too (fw/db's `processDatabase()`), so the
   * app's generated stores, its factories (`factories.Post.insert(…)`) and its `users` store,
   * imported into a test, read and write the running app's rows (the app started last, when a
   * process starts several). Opened on first use; closed by `close`.
   */
  readonly database: Database;
  /** Stops the app and removes its database. */
  close(): Promise<void>;
}

/** fw's warnings a test app printed that this test process passed on already: every app of a run would print the same. */
const forwarded = new Set<string>();

/**
 * Passes fw's warnings in an app's stderr (whole lines `fw/<module>: warning: …`, such as fw/db's
 * about a PGlite fw has no template for) on to the test's own stderr, once each per test process:
 * the rest of the app's output stays in `output()`, and without this a warning meant for the
 * developer would never be seen. Answers how far `err` was read (up to its last whole line).
 */
function forwardWarnings(err: string, from: number): number {
  const end = err.lastIndexOf("\n") + 1;
  if (end <= from) return from;
  for (const line of err.slice(from, end).split("\n")) {
    if (!/^fw\/[a-z]+: warning: /.test(line) || forwarded.has(line)) continue;
    forwarded.add(line);
    process.stderr.write(`${line}\n`);
  }
  return end;
}

/**
 * Starts the built app for one test, as `node <main> dev` in a process of its own on a free port,
 * so nothing is shared between tests: not the in-memory stores, not the sign-in limiters, not
 * the database, not the uploaded files (fw/files keeps them in a temp folder of the test's own:
 * `FW_STORAGE=file:///…`, unless `env` names another). With fw/db the app gets a fresh one: when `DATABASE_URL` is set, a new database
 * on that server (created now, dropped by `close`); otherwise an empty embedded one in a temp
 * directory (`DATABASE_URL=pglite:DIR`, which wins over the app's own directory). Resolves once the app serves; rejects with its output if it
 * exits first.
 */
export async function startApp(options: StartAppOptions = {}): Promise<TestApp> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const main = resolve(cwd, options.main ?? "dist/main.js");
  const scratch = mkdtempSync(resolve(tmpdir(), "fw-test-"));
  const given = process.env["DATABASE_URL"];
  let postgres: FreshDatabase | undefined;
  try {
    // A server URL gets a fresh database on that server; none (or a `pglite:` one) a fresh embedded one.
    postgres = given === undefined || given.trim() === "" || given.startsWith("pglite:") ? undefined : await freshPostgres(given);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    FW_SECRET: randomBytes(32).toString("base64url"),
    DATABASE_URL: postgres === undefined ? `pglite:${resolve(scratch, "db")}` : postgres.url,
    // fw/mail delivers into this test's own mailbox, never through SMTP (mails() reads it).
    FW_MAILBOX: resolve(scratch, "mail"),
    // fw/files keeps uploads in this test's own folder, never the app's .fw/files (dev's) nor
    // the FW_STORAGE of the shell that runs the tests; removed by close.
    FW_STORAGE: pathToFileURL(resolve(scratch, "files")).href,
    FW_ENV_FILES: options.envFiles === true ? "1" : "0",
    // A DbApp on the embedded database serves it, so this process reaches it too (`database`).
    FW_SERVE_DATABASE: "1",
    ...options.env,
  };
  delete env["NODE_ENV"];
  delete env["FW_DEV_SUPERVISED"];
  const child = spawn(process.execPath, ["--enable-source-maps", main, ...(options.args ?? ["dev"])], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  let scanned = 0;
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
    scanned = forwardWarnings(err, scanned);
  });
  const exited = new Promise<void>((done) => child.once("close", () => done()));
  // Where the app's database is, as its environment says (`env` may have named another).
  const databaseUrl = env["DATABASE_URL"] ?? "";
  const database = new TestAppDatabase(databaseUrl.startsWith("pglite:") ? { engine: "pglite", directory: resolve(cwd, databaseUrl.slice("pglite:".length)) } : { engine: "postgres", url: databaseUrl });
  const cleanUp = async (): Promise<void> => {
    await database.close();
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    await postgres?.drop();
    rmSync(scratch, { recursive: true, force: true });
  };
  let url: string;
  try {
    url = await new Promise<string>((ready, fail) => {
      child.stdout.on("data", () => {
        const match = /serving \d+ routes on (http:\/\/[^\s"]+)/.exec(out);
        if (match?.[1] !== undefined) ready(match[1]);
      });
      void exited.then(() => fail(new Error(`fw/testing: ${main} exited before serving (code ${child.exitCode ?? child.signalCode}).\n${out}${err}`)));
    });
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const mailbox = env["FW_MAILBOX"] as string;
  // fw/db is loaded for it, not the database: that opens on the first statement a test sends.
  (await import("../db/process-database.js")).setProcessDatabase(database);
  return {
    url,
    client: () => new TestClient(url, mailbox),
    output: () => ({ out, err }),
    mails: (filter) => sentMails(mailbox, filter?.to),
    mail: (filter) => waitForMail(mailbox, filter),
    database,
    close: cleanUp,
  };
}
