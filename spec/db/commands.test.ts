import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../runtime/db/index.js";
import { bootNode, runNode } from "../support/process.js";
import { onPostgres } from "./engines.js";
import { PRODUCTION_ENV } from "../support/serve.js";

// Real child processes on a real embedded database in a temp working directory; the steps
// build on each other (the database persists between them, as an app's does between runs).
const APP = join(import.meta.dirname, "app/main.mjs");
let cwd = "";

const db = (args: readonly string[], env: Record<string, string | undefined> = {}) => runNode(APP, ["db", ...args], { DATABASE_URL: undefined, ...env }, cwd);

function migration(name: string, sql: string): void {
  writeFileSync(join(cwd, "db/migrations", `${name}.sql`), sql);
}

async function served(env: Record<string, string> = {}): Promise<{ notes: string; fsync: string; stop: () => Promise<number | null> }> {
  const app = bootNode(APP, [], { ...PRODUCTION_ENV, DATABASE_URL: "", ...env }, cwd);
  const url = await app.url;
  const notes = await (await fetch(`${url}/notes`)).text();
  const fsync = await (await fetch(`${url}/fsync`)).text();
  app.child.kill("SIGTERM");
  return { notes, fsync, stop: () => app.exited };
}

/** A production boot that must stop before serving: its exit code and what it printed; one that serves fails the test at once. */
async function refusedBoot(env: Record<string, string | undefined>, where: string): Promise<{ code: number | null; err: string }> {
  const app = bootNode(APP, [], env, where);
  const served = await app.url.then(
    () => true,
    () => false,
  );
  if (served) {
    app.child.kill("SIGTERM");
    await app.exited;
    throw new Error(`the app booted and served from ${where}:\n${app.output().err}`);
  }
  return { code: await app.exited, err: app.output().err };
}

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), "fw-dbapp-"));
  mkdirSync(join(cwd, "db/migrations"), { recursive: true });
  migration("0001_create_notes", "CREATE TABLE notes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, text text NOT NULL, fw_version integer NOT NULL DEFAULT 1);");
  // The embedded database's first open runs initdb (seconds to tens of seconds on a loaded
  // machine): done once here, so each test pays only the reopens of its processes.
  await (await openDatabase({ cwd, env: {} })).close();
}, 300_000);
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("issue 20: DbApp's db commands, in real processes", () => {
  it("HttpApp alone answers `db` as an unknown command", async () => {
    const ran = await db(["migrate"], { PLAIN: "1" });
    expect(ran.code).toBe(2);
    expect(ran.err).toContain('fw: unknown command "db"');
    expect(ran.err).not.toContain("db migrate");
  });

  it("db status lists the pending migration; db migrate applies it; again, nothing to do", async () => {
    const before = await db(["status"]);
    expect(before.code).toBe(0);
    expect(before.out).toContain("pending  0001_create_notes");
    const applied = await db(["migrate"]);
    expect(applied.code).toBe(0);
    expect(applied.out).toContain("fw: applied 0001_create_notes");
    const again = await db(["migrate"]);
    expect(again.out).toContain("fw: no pending migrations in db/migrations");
    expect((await db(["status"])).out).toContain("applied  0001_create_notes");
  }, 300_000);

  it("db seed runs the seed; the data is still there across restarts of the server", async () => {
    const seeded = await db(["seed"]);
    expect(seeded.code).toBe(0);
    expect(seeded.out).toContain("fw: seeded PGlite at");
    const first = await served();
    expect(first.notes).toBe("seeded");
    // Issue 28: a production boot on the embedded database syncs every commit to disk.
    expect(first.fsync).toBe("on");
    expect(await first.stop()).toBe(0);
    const second = await served();
    expect(second.notes).toBe("seeded");
    await second.stop();
  }, 300_000);

  it("a production boot with an unapplied migration refuses to start, naming it and the command; dev applies it", async () => {
    migration("0002_add_done", "ALTER TABLE notes ADD COLUMN done boolean;");
    const refused = await runNode(APP, [], { ...PRODUCTION_ENV, DATABASE_URL: undefined }, cwd);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/fw: cannot boot: 1 migration\(s\) in db\/migrations are not applied to PGlite at .*: 0002_add_done\. Apply them first with `node .*main\.mjs db migrate`\./);
    const app = bootNode(APP, ["dev"], { DATABASE_URL: "" }, cwd);
    const url = await app.url;
    expect(app.output().err).toContain("fw: dev applied the pending migration 0002_add_done");
    // Dev keeps PGlite's fsync off: faster writes, and dev data may be lost in a machine crash.
    expect(await (await fetch(`${url}/fsync`)).text()).toBe("off");
    app.child.kill("SIGTERM");
    await app.exited;
    expect((await db(["status"])).out).toContain("applied  0002_add_done");
  }, 300_000);

  it("db new writes the next numbered migration; db with no or an unknown command shows the db usage", async () => {
    const made = await db(["new", "add", "tags"]);
    expect(made.out).toContain("fw: wrote db/migrations/0003_add_tags.sql");
    expect(readdirSync(join(cwd, "db/migrations"))).toContain("0003_add_tags.sql");
    rmSync(join(cwd, "db/migrations/0003_add_tags.sql"));
    const unknown = await db(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown db command "frobnicate"');
    expect(unknown.err).toContain("db reset        dev only");
    expect((await db(["new"])).err).toContain("db new needs a name");
  });

  it("db reset refuses under NODE_ENV=production; in development it empties, re-migrates and seeds (the embedded database: no question, no --force)", async () => {
    const refused = await db(["reset"], { NODE_ENV: "production" });
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("db reset drops every table, so it runs in development only");
    expect((await served()).notes).toBe("seeded");
    const reset = await db(["reset"], { NODE_ENV: "development" });
    expect(reset.code).toBe(0);
    expect(reset.out).toContain("fw: applied 0001_create_notes");
    expect(reset.out).toContain("fw: applied 0002_add_done");
    expect(reset.out).toContain("fw: seeded");
    const after = await served();
    expect(after.notes).toBe("seeded");
    await after.stop();
  }, 300_000);

  it("issue 39 item 20: a production boot of an app with table models and no migrations refuses to start, naming the folder it looked in and what to do, before it opens a database", async () => {
    // The app run from another folder (as bench/soak.mjs once ran the example): no db/migrations here.
    const elsewhere = mkdtempSync(join(tmpdir(), "fw-dbapp-elsewhere-"));
    try {
      const refused = await refusedBoot({ ...PRODUCTION_ENV, DATABASE_URL: undefined, TABLES: "1" }, elsewhere);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(
        `fw: cannot boot: fw/db: this app has table models (notes), and there is no migrations folder at ${join(elsewhere, "db/migrations")} ` +
          "(db/migrations under the working directory): it would serve a database without their tables, and every page reading them would fail. " +
          "Run the app from its own folder, the one that holds db/migrations, or write the first migration: build the app, then `node ",
      );
      expect(refused.err).toMatch(/`node \S*main\.mjs db new NAME` and `node \S*main\.mjs db migrate`\./);
      // Refused before the embedded database was made in the wrong folder.
      expect(existsSync(join(elsewhere, ".fw"))).toBe(false);
      // A folder holding no migration is refused the same way, saying so.
      mkdirSync(join(elsewhere, "db/migrations"), { recursive: true });
      const empty = await refusedBoot({ ...PRODUCTION_ENV, DATABASE_URL: undefined, TABLES: "1" }, elsewhere);
      expect(empty.code).toBe(1);
      expect(empty.err).toContain(`fw: cannot boot: fw/db: this app has table models (notes), and the migrations folder ${join(elsewhere, "db/migrations")} holds no migration`);
      // An app without table models (no `tables`) needs no migrations: it boots there.
      const plain = bootNode(APP, [], { ...PRODUCTION_ENV, DATABASE_URL: "" }, elsewhere);
      expect((await fetch(`${await plain.url}/fsync`)).status).toBe(200);
      plain.child.kill("SIGTERM");
      expect(await plain.exited).toBe(0);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    // Where the migrations are, the same app with its tables boots.
    const home = bootNode(APP, [], { ...PRODUCTION_ENV, DATABASE_URL: "", TABLES: "1" }, cwd);
    expect((await fetch(`${await home.url}/fsync`)).status).toBe(200);
    home.child.kill("SIGTERM");
    expect(await home.exited).toBe(0);
  }, 300_000);

  it("an edited applied migration stops db migrate and the boot, naming the file", async () => {
    migration("0002_add_done", "ALTER TABLE notes ADD COLUMN done boolean NOT NULL DEFAULT false;");
    const ran = await db(["migrate"]);
    expect(ran.code).toBe(1);
    expect(ran.err).toContain("the migration db/migrations/0002_add_done.sql was edited after it was applied");
    const boot = await runNode(APP, [], { ...PRODUCTION_ENV, DATABASE_URL: undefined }, cwd);
    expect(boot.code).toBe(1);
    expect(boot.err).toContain("fw: cannot boot: fw/db: the migration db/migrations/0002_add_done.sql was edited");
  }, 300_000);

  it("a DATABASE_URL nobody answers stops the boot with a message naming DATABASE_URL", async () => {
    const boot = await runNode(APP, [], { ...PRODUCTION_ENV, DATABASE_URL: "postgres://app:secret@127.0.0.1:1/app" }, cwd);
    expect(boot.code).toBe(1);
    expect(boot.err).toContain("fw: cannot boot: fw/db: cannot connect to the PostgreSQL database named by DATABASE_URL (postgres://app@127.0.0.1:1/app)");
    expect(boot.err).not.toContain("secret@");
  });

  it("db new with the models' tables writes the drift's SQL; a required column on a table with rows stops the migration until its value is written in", async () => {
    migration("0002_add_done", "ALTER TABLE notes ADD COLUMN done boolean;"); // as applied (the test above edited it)
    const made = await db(["new", "rate notes"], { TABLES: "1" });
    expect(made.code, made.err).toBe(0);
    expect(made.out).toMatch(/fw: wrote db\/migrations\/0003_rate_notes\.sql \(1 change in notes; apply it with `node .*main\.mjs db migrate`\)/);
    expect(made.out).toContain(
      'fw: edit it first: notes: adds the column priority (integer, NOT NULL); the rows already there get the value you choose; it stops with "fw: choose …" until you write that value in',
    );
    const path = join(cwd, "db/migrations/0003_rate_notes.sql");
    const text = readFileSync(path, "utf8");
    expect(text).toContain(
      [
        "-- notes: adds the column priority (integer, NOT NULL); the rows already there get the value you choose",
        "DO $$ BEGIN RAISE EXCEPTION 'fw: choose the value existing rows of notes get in priority: edit this migration (write the value in place of the NULL below, then delete this statement)'; END $$;",
        'ALTER TABLE "notes" ADD COLUMN "priority" integer NOT NULL DEFAULT NULL /* fw: the value */;',
        'ALTER TABLE "notes" ALTER COLUMN "priority" DROP DEFAULT;',
        "",
      ].join("\n"),
    );
    expect((await db(["status"], { TABLES: "1" })).out).toContain(
      "pending  0003_rate_notes\ndrift    notes: adds the column priority (integer, NOT NULL); the rows already there get the value you choose " +
        "(cannot apply as it stands: choose the value existing rows of notes get in priority (1 row))\n",
    );
    const stopped = await db(["migrate"]);
    expect(stopped.code).toBe(1);
    expect(stopped.err).toContain("0003_rate_notes.sql failed and was rolled back (nothing of it is applied): fw: choose the value existing rows of notes get in priority: edit this migration");
    // A second db new tries the pending migrations first, and says which one to finish.
    const again = await db(["new", "more"], { TABLES: "1" });
    expect(again.code).toBe(1);
    expect(again.err).toContain("and the pending migration db/migrations/0003_rate_notes.sql fails: fw: choose the value existing rows of notes get in priority");
    // Edited as it says: it applies, and nothing is left to write.
    writeFileSync(path, text.replace(/^DO \$\$.*\n/m, "").replace("NULL /* fw: the value */", "3"));
    expect((await db(["migrate"])).out).toContain("fw: applied 0003_rate_notes");
    const none = await db(["new", "nothing"], { TABLES: "1" });
    expect(none.out).toContain("fw: wrote db/migrations/0004_nothing.sql\n");
    expect(readFileSync(join(cwd, "db/migrations/0004_nothing.sql"), "utf8")).toMatch(/^-- nothing: applied once[^\n]*\n\n-- fw:down: [^\n]*\n$/);
    // The PostgreSQL part below migrates this directory without the priority its seed does not fill.
    rmSync(path);
    rmSync(join(cwd, "db/migrations/0004_nothing.sql"));
  }, 300_000);
});

describe("issue 43, item 8: db rollback, in real processes", () => {
  let own = "";
  const run = (args: readonly string[], env: Record<string, string | undefined> = {}) => runNode(APP, ["db", ...args], { DATABASE_URL: undefined, NO_SEED: "1", ...env }, own);
  beforeAll(async () => {
    own = mkdtempSync(join(tmpdir(), "fw-rollback-"));
    mkdirSync(join(own, "db/migrations"), { recursive: true });
    await (await openDatabase({ cwd: own, env: {} })).close();
  }, 300_000);
  afterAll(() => rmSync(own, { recursive: true, force: true }));

  it("db new writes the up and its down; db rollback [N] undoes them newest first, refuses one without a down, and under NODE_ENV=production only with --production; db status says which cannot", async () => {
    const made = await run(["new", "create notes"], { TABLES: "1" });
    expect(made.code, made.err).toBe(0);
    const text = readFileSync(join(own, "db/migrations/0001_create_notes.sql"), "utf8");
    expect(text).toMatch(/CREATE TABLE "notes"[\s\S]*\n-- fw:down: what `db rollback` runs[^\n]*\n-- undoes: notes: [^\n]*\nDROP TABLE "notes";\n$/);
    writeFileSync(join(own, "db/migrations/0002_add_flag.sql"), 'ALTER TABLE "notes" ADD COLUMN flag boolean;\n');
    expect((await run(["migrate"])).out).toContain("fw: applied 0002_add_flag");
    expect((await run(["status"])).out).toContain("applied  0001_create_notes\napplied  0002_add_flag  (no down: db rollback stops here)\n");
    const stuck = await run(["rollback"]);
    expect(stuck.code).toBe(1);
    expect(stuck.err).toContain("fw/db: the migration db/migrations/0002_add_flag.sql has no down (no `-- fw:down` line), so it cannot be rolled back; nothing was.");
    writeFileSync(join(own, "db/migrations/0002_add_flag.sql"), 'ALTER TABLE "notes" ADD COLUMN flag boolean;\n-- fw:down\nALTER TABLE "notes" DROP COLUMN flag;\n');
    const production = await run(["rollback", "2"], { NODE_ENV: "production" });
    expect(production.code).toBe(1);
    expect(production.err).toMatch(/fw: db rollback undoes the schema the running app uses, and NODE_ENV is production here: nothing was changed\. If it is meant, run `node .*main\.mjs db rollback 2 --production`\./);
    expect((await run(["rollback", "two"])).code).toBe(2);
    const back = await run(["rollback", "2"], { NODE_ENV: "development" });
    expect(back.code, back.err).toBe(0);
    expect(back.out).toContain("fw: rolled back 0002_add_flag\nfw: rolled back 0001_create_notes\n");
    expect((await run(["status"])).out).toContain("pending  0001_create_notes\npending  0002_add_flag\n");
    expect((await run(["migrate"])).code).toBe(0);
    const meant = await run(["rollback", "--production"], { NODE_ENV: "production" });
    expect(meant.code, meant.err).toBe(0);
    expect(meant.out).toContain("fw: rolled back 0002_add_flag\n");
  }, 300_000);
});

onPostgres((engine) => {
  describe("issue 20: the same commands on PostgreSQL (DATABASE_URL)", () => {
    it("db migrate and db seed on the server; the app serves the rows; a second process sees them too", async () => {
      const url = (engine.cluster() as { url: string }).url;
      const applied = await db(["migrate"], { DATABASE_URL: url });
      expect(applied.code).toBe(0);
      expect(applied.out).toContain("fw: applied 0001_create_notes");
      expect((await db(["status"], { DATABASE_URL: url })).out).toMatch(/fw: PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres/);
      expect((await db(["seed"], { DATABASE_URL: url })).code).toBe(0);
      const first = bootNode(APP, [], { ...PRODUCTION_ENV, DATABASE_URL: url }, cwd);
      const second = bootNode(APP, [], { ...PRODUCTION_ENV, DATABASE_URL: url }, cwd);
      try {
        for (const app of [first, second]) expect(await (await fetch(`${await app.url}/notes`)).text()).toBe("seeded");
      } finally {
        first.child.kill("SIGTERM");
        second.child.kill("SIGTERM");
        expect([await first.exited, await second.exited]).toEqual([0, 0]);
      }
    }, 300_000);

    it("issue 28: db reset on a server without a terminal refuses unless --force, saying how; a server on another machine needs --remote too", async () => {
      const url = (engine.cluster() as { url: string }).url;
      const notes = async () => (await engine.db().query<{ text: string }>("SELECT text FROM notes")).rows.map((row) => row.text);
      expect(await notes()).toEqual(["seeded"]);
      // No NODE_ENV at all, as when the server lost every table; stdin is a pipe, not a terminal.
      const refused = await db(["reset"], { DATABASE_URL: url, NODE_ENV: undefined });
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/fw: db reset drops every table of PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres and asks first, but there is no terminal to ask in\. Nothing was changed\. Run it in a terminal to confirm, or pass --force: `db reset --force`\./);
      expect(await notes()).toEqual(["seeded"]);
      // Another machine: refused before connecting, even with --force (nothing listens at db.invalid).
      const remote = await db(["reset", "--force"], { DATABASE_URL: "postgres://app:secret@db.invalid:5432/shop", NODE_ENV: undefined });
      expect(remote.code).toBe(1);
      expect(remote.err).toContain("a server on another machine (db.invalid), so it refuses unless told that is meant. Nothing was changed. If that really is the database to empty, run `db reset --force --remote`.");
      expect(remote.err).not.toContain("secret");
      // Told both, it goes on to the server (which does not exist: the connection is what fails).
      const told = await db(["reset", "--force", "--remote"], { DATABASE_URL: "postgres://app@db.invalid:5432/shop", NODE_ENV: undefined });
      expect(told.code).toBe(1);
      expect(told.err).toContain("cannot connect to the PostgreSQL database named by DATABASE_URL");
      expect((await db(["reset", "--yes"], { DATABASE_URL: url })).code).toBe(2);
      const forced = await db(["reset", "--force"], { DATABASE_URL: url, NODE_ENV: undefined });
      expect(forced.code).toBe(0);
      expect(forced.out).toContain("fw: dropped every table of PostgreSQL at");
      expect(forced.out).toContain("fw: seeded");
    }, 300_000);

    it.runIf(existsSync("/usr/bin/script"))("issue 28: at a terminal db reset asks for the database's name: a wrong answer changes nothing, the name resets", async () => {
      const url = (engine.cluster() as { url: string }).url;
      await engine.db().query("INSERT INTO notes (text) VALUES ($1)", ["kept"]);
      const wrong = await atTerminal(["db", "reset"], url, "yes");
      expect(wrong.code).toBe(1);
      expect(wrong.output).toContain("Type the database's name (postgres) to go on:");
      expect(wrong.output).toContain("fw: db reset: not confirmed. Nothing was changed.");
      expect((await engine.db().query("SELECT count(*)::int AS n FROM notes WHERE text = 'kept'")).rows[0]).toEqual({ n: 1 });
      const right = await atTerminal(["db", "reset"], url, "postgres");
      expect(right.code).toBe(0);
      expect(right.output).toContain("fw: dropped every table of PostgreSQL at");
      expect((await engine.db().query("SELECT count(*)::int AS n FROM notes WHERE text = 'kept'")).rows[0]).toEqual({ n: 0 });
    }, 300_000);
  });
});

/** Runs the app under a pseudo-terminal (util-linux `script`), typing `answer` once it asks. */
function atTerminal(args: readonly string[], url: string, answer: string): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, APP, ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ");
  const child = spawn("script", ["-qec", command, "/dev/null"], { cwd, env: { ...process.env, DATABASE_URL: url, NODE_ENV: "" } });
  let output = "";
  let answered = false;
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    if (!answered && output.includes("to go on: ")) {
      answered = true;
      child.stdin.write(`${answer}\n`);
    }
  });
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((done) => child.on("close", (code) => done({ code, output })));
}
