import { existsSync } from "node:fs";
import { relative, resolve } from "node:path";
import { BootError } from "../routing/boot-error.js";
import { loadDevHook } from "../app/load-dev-hook.js";
import { HttpApp, type HttpAppOptions, type ServeOptions } from "../app/http-app.js";
import { RouteTable } from "../routing/route-table.js";
import type { RunningServer } from "../server/server.js";
import type { DevHook } from "../server/dev-hook.js";
import { isProductionEnv } from "../server/run-mode.js";
import { DevDrift } from "./dev-drift.js";
import { schemaDrift } from "./schema-diff.js";
import type { Database } from "./database.js";
import { canRollBack, migrate, MigrationError, migrationStatus, MIGRATIONS_DIRECTORY, newMigration, readMigrations, rollback } from "./migrations.js";
import { downSql } from "./schema-undo.js";
import { appDatabase, type AppDatabase } from "./open.js";
import { CannotOpenDatabase } from "./open-error.js";
import { setProcessDatabase } from "./process-database.js";
import { migrationDraft } from "./migration-draft.js";
import { PostgresFanOut } from "./postgres-fan-out.js";
import type { HeldPglite } from "./pglite-host.js";
import { parseResetFlags, resetVerdict } from "./reset-guard.js";
import type { TableSpec } from "./table.js";
import { ProcessBackgrounds, type Background } from "./background.js";
import { SqlUsers } from "./sql-users.js";
import { normalEmail } from "../http/email-address.js";

export interface DbAppOptions extends HttpAppOptions {
  /** The database the app's stores use. Default: `appDatabase()` (`DATABASE_URL`, else `.fw/db`). */
  readonly database?: AppDatabase;
  /** The migrations directory. Default `db/migrations` under the working directory. */
  readonly migrations?: string;
  /**
   * Runs at each `dev` boot once the database is open and migrated, before the server listens:
   * the place for dev-only rows such as a demo account (make it idempotent). Under `fw dev` it
   * may run while the previous app process still serves (on PGlite, fw dev holds the database
   * for both); code that touches the database before `main()` (at the module's top level) on
   * PGlite opens it before fw dev holds it, on the first start, and fw dev cannot hold it then.
   */
  readonly devBoot?: (db: Database) => Promise<void> | void;
  /** What `db seed` (and `db reset` after it) runs to fill the database with starting rows. */
  readonly seed?: (db: Database) => Promise<void> | void;
  /**
   * The tables of the app's table models (the generated module's `tables`): `db new NAME` writes
   * the SQL that brings the database, as the pending migrations leave it, in line with them, and `dev`
   * compares them with the database after each boot, showing the drift page while they differ.
   * Without it `dev` shows no drift page.
   */
  readonly tables?: readonly TableSpec[];
  /**
   * The app's background jobs (fw/jobs: the generated module's `jobs`): every serving process
   * runs them once the database is open and migrated, `--workers` processes included, and a
   * stop lets the running ones finish within `shutdownGraceMs` (the rest stay queued). In `dev`
   * their page is at `/fw/jobs`.
   */
  readonly jobs?: Background;
}

const DB_USAGE = `  db migrate      apply the pending migrations (db/migrations/NNNN_name.sql), in order
  db status       list the applied and the pending migrations, and where the database
                  differs from the models (the dev drift page's changes)
  db new NAME     write the next numbered migration file, with the SQL that brings the
                  database (and the pending migrations) in line with the models (else empty),
                  and under its \`-- fw:down\` line the SQL that undoes it
  db rollback [N] undo the last N applied migrations (1 without N), newest first, by their
                  downs; refused under NODE_ENV=production unless --production is given
  db seed         run the app's seed (DbApp's \`seed\` option)
  db grant ROLE EMAIL   give the user a role (fw/auth's role guards read it at once)
  db revoke ROLE EMAIL  take the role back
  db roles EMAIL  list the user's roles
  db reset        dev only: drop every table, migrate from scratch, seed; on a PostgreSQL
                  server it asks for the database's name first (--force: no question;
                  --remote: a server on another machine, refused without it)
`;

/**
 * The umbrella entry that stacks fw/db on `HttpApp` (spec section 1): the same commands plus
 * `db …`. Before serving it opens the database (an unreachable `DATABASE_URL` stops the boot,
 * named) and checks the migrations: `dev` applies pending ones and says so; a production boot
 * with pending migrations refuses to start, naming them and the command to run.
 */
export class DbApp extends HttpApp {
  readonly database: AppDatabase;
  readonly migrations: string;
  /** The `migrations` option as given (for messages), undefined for the default folder. */
  private readonly migrationsOption: string | undefined;
  private readonly seed: DbAppOptions["seed"];
  private readonly devBoot: DbAppOptions["devBoot"];
  private readonly tables: readonly TableSpec[];
  /** The app passed its tables: `dev` compares them with the database (the drift page). */
  private readonly declaresTables: boolean;
  /** The app's jobs and what fw's modules registered beside them (fw/files' file jobs). */
  private readonly jobs: ProcessBackgrounds;
  /** The embedded database this process serves to its test (`FW_SERVE_DATABASE=1`, set by fw/testing's startApp). */
  private served: HeldPglite | undefined;

  constructor(options: DbAppOptions) {
    super(options);
    this.database = options.database ?? appDatabase();
    // The generated stores of table models reach the database through the process's one.
    setProcessDatabase(this.database);
    this.migrations = resolve(options.migrations ?? MIGRATIONS_DIRECTORY);
    this.migrationsOption = options.migrations;
    this.seed = options.seed;
    this.devBoot = options.devBoot;
    this.tables = options.tables ?? [];
    this.declaresTables = options.tables !== undefined;
    this.jobs = new ProcessBackgrounds(options.jobs);
    // Several processes share a PostgreSQL database: named rooms reach all of them through
    // LISTEN/NOTIFY. PGlite is one process's database, whose rooms need nothing more.
    const url = this.database.postgresUrl;
    if (!this.fanOutChosen && url !== undefined) this.fanOut = new PostgresFanOut({ url, database: this.database, log: (line) => this.console.err(line) });
  }

  /** PGlite is one process's database (its directory is locked): several workers cannot share it. */
  protected override workersRefusal(): string | undefined {
    if (this.database.engine !== "pglite") return undefined;
    return `--workers needs a database several processes can share, and ${this.database.description} is the embedded one, which one process opens at a time. Set DATABASE_URL to a PostgreSQL server (see docs/guides/deploying.md in fw), or serve one process.`;
  }

  /**
   * Production opens the database and checks the migrations before anything listens. `dev`
   * does it in the dev hook's `beforeListen`: under `fw dev` the supervisor holds the embedded
   * database across restarts (a restart connects to it while the previous app still serves);
   * run alone, or on PostgreSQL, once the hook lets the server listen. Then `dev` compares the
   * models with the database and shows the drift page while they differ.
   */
  /** Ready once the jobs have started too (`markReady` below), not as soon as the server listens. */
  protected override readonly readyWhenServed: boolean = false;

  override async serve(options: ServeOptions = {}): Promise<RunningServer> {
    let running: RunningServer;
    const dev = (options.dev ?? false) && !isProductionEnv();
    const routes = this.routes;
    try {
      if (dev && this.jobs?.devRoutes !== undefined) this.routes = new RouteTable(await this.jobs.devRoutes(), routes.identify).concat(routes);
      if (dev) {
        // Dev data may be lost in a crash of the machine; production's commits are synced to disk.
        this.database.relaxDurability();
        const hook = options.devHook ?? (await loadDevHook());
        running = await super.serve({ ...options, devHook: this.devHook(hook) });
      } else {
        running = await super.serve(options);
      }
    } catch (error) {
      await this.jobs?.stop(0).catch(() => undefined);
      await this.database.close().catch(() => undefined);
      await this.served?.close().catch(() => undefined);
      throw error;
    } finally {
      this.routes = routes;
    }
    // Started once the server listens. The process handles SIGTERM from before the boot
    // (runUntilStopped): a stop that arrives while the jobs start waits for them, then stops them
    // with the server, so it never cuts a job off.
    await this.jobs?.start();
    this.markReady();
    // The server and the jobs stop together, each within the grace; the database closes after both.
    const stopJobs = (): Promise<void> => this.jobs?.stop(this.shutdownGraceMs) ?? Promise.resolve();
    const close = async (): Promise<void> => {
      const stopped = await Promise.allSettled([running.close(), stopJobs()]);
      await this.database.close();
      await this.served?.close();
      for (const result of stopped) if (result.status === "rejected") throw result.reason;
    };
    return { ...running, close };
  }

  protected override async command(args: readonly string[]): Promise<number | undefined> {
    if (args[0] !== "db") return undefined;
    try {
      return await this.dbCommand(args[1], args.slice(2));
    } catch (error) {
      if (!(error instanceof MigrationError || error instanceof CannotOpenDatabase)) throw error;
      this.console.err(error.message);
      return 1;
    } finally {
      await this.database.close();
    }
  }

  protected override moreUsage(): string {
    return DB_USAGE;
  }

  private async dbCommand(sub: string | undefined, rest: readonly string[]): Promise<number> {
    switch (sub) {
      case "migrate":
        return this.migrateCommand();
      case "status":
        return this.statusCommand();
      case "rollback":
        return this.rollbackCommand(rest);
      case "new":
        return this.newCommand(rest);
      case "seed":
        return this.seedCommand();
      case "reset":
        return this.resetCommand(rest);
      case "grant":
      case "revoke":
      case "roles":
        return this.rolesCommand(sub, rest);
      default:
        this.console.err(`fw: ${sub === undefined ? "db needs a command" : `unknown db command ${JSON.stringify(sub)}`}\nusage: <app> db <command>\n${DB_USAGE}`);
        return 2;
    }
  }

  /**
   * `db grant ROLE EMAIL`, `db revoke ROLE EMAIL`, `db roles EMAIL` (issue 41): a user's roles in
   * fw/db's users table, so the first admin can be made on a server. Every process reads the new
   * roles at its next request; sockets open as that user keep what they had until they reconnect
   * (the app's own `auth.setRoles` closes them at once).
   */
  private async rolesCommand(sub: "grant" | "revoke" | "roles", rest: readonly string[]): Promise<number> {
    const [role, email] = sub === "roles" ? [undefined, rest[0]] : [rest[0], rest[1]];
    if (email === undefined || (sub !== "roles" && role === undefined) || rest.length > (sub === "roles" ? 1 : 2)) {
      this.console.err(`fw: usage: <app> db ${sub === "roles" ? "roles EMAIL" : `${sub} ROLE EMAIL`}`);
      return 2;
    }
    const users = new SqlUsers(await this.database.open());
    const user = await users.byEmail(normalEmail(email));
    if (user === undefined) {
      this.console.err(`fw: there is no user with the email ${JSON.stringify(normalEmail(email))} in ${this.database.description}.`);
      return 1;
    }
    const had = user.roles ?? [];
    if (sub === "roles") {
      this.console.out(`${user.email}: ${had.length === 0 ? "no roles" : had.join(", ")}`);
      return 0;
    }
    const roles = sub === "grant" ? [...had, role as string] : had.filter((held) => held !== role);
    try {
      const changed = await users.setRoles(user.id, roles);
      this.console.out(`fw: ${user.email} ${sub === "grant" ? "holds" : "no longer holds"} ${role as string}: ${(changed?.roles ?? []).length === 0 ? "no roles" : (changed?.roles ?? []).join(", ")}`);
      return 0;
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      this.console.err(error.message);
      return 2;
    }
  }

  private async migrateCommand(): Promise<number> {
    const applied = await migrate(await this.database.open(), this.migrations);
    for (const name of applied) this.console.out(`fw: applied ${name}`);
    if (applied.length === 0) this.console.out(`fw: no pending migrations in ${this.shown(this.migrations)} (${this.database.description})`);
    return 0;
  }

  /**
   * `db rollback [N] [--production]` (issue 43): undoes the last N applied migrations by their
   * downs. Under NODE_ENV=production it refuses unless `--production` says it is meant: undoing
   * a schema there can drop what the running app writes.
   */
  private async rollbackCommand(rest: readonly string[]): Promise<number> {
    const production = rest.includes("--production");
    const others = rest.filter((arg) => arg !== "--production");
    const steps = others.length === 0 ? 1 : /^[1-9]\d{0,3}$/.test(others[0] as string) && others.length === 1 ? Number(others[0]) : undefined;
    if (steps === undefined) {
      this.console.err(`fw: usage: <app> db rollback [N] [--production]: N, the number of migrations to undo, a whole number from 1 (not ${JSON.stringify(others.join(" "))})`);
      return 2;
    }
    if (isProductionEnv() && !production) {
      this.console.err(`fw: db rollback undoes the schema the running app uses, and NODE_ENV is production here: nothing was changed. If it is meant, run \`${this.invocation(`db rollback ${steps} --production`)}\`.`);
      return 1;
    }
    const undone = await rollback(await this.database.open(), this.migrations, steps);
    for (const name of undone) this.console.out(`fw: rolled back ${name}`);
    if (undone.length === 0) this.console.out(`fw: no applied migrations to roll back in ${this.shown(this.migrations)} (${this.database.description})`);
    return 0;
  }

  private async statusCommand(): Promise<number> {
    const status = await migrationStatus(await this.database.open(), this.migrations);
    this.console.out(`fw: ${this.database.description}, migrations in ${this.shown(this.migrations)}`);
    const undoable = new Set(readMigrations(this.migrations).filter(canRollBack).map((m) => m.name));
    for (const name of status.applied) this.console.out(`applied  ${name}${undoable.has(name) ? "" : "  (no down: db rollback stops here)"}`);
    for (const name of status.pending) this.console.out(`pending  ${name}`);
    if (status.applied.length + status.pending.length === 0) this.console.out("no migrations yet: write one with `db new NAME`");
    if (this.declaresTables) {
      // What the models want that the database lacks (pending migrations may be part of it).
      const drift = await schemaDrift(await this.database.open(), this.tables);
      for (const change of drift.changes) {
        const destructive = change.destructive === undefined ? "" : ` (destructive: ${change.destructive})`;
        const refused = change.refused === undefined ? "" : ` (cannot apply as it stands: ${change.refused})`;
        this.console.out(`drift    ${change.table}: ${change.summary}${destructive}${refused}`);
      }
    }
    return 0;
  }

  private async newCommand(rest: readonly string[]): Promise<number> {
    if (rest.length === 0) {
      this.console.err("fw: db new needs a name: db new create_posts");
      return 2;
    }
    const drift = this.declaresTables ? await migrationDraft(await this.database.open(), this.tables, this.migrations) : undefined;
    const path = newMigration(this.migrations, rest.join(" "), drift?.sql ?? "", drift === undefined ? "" : downSql(drift.changes));
    const changes = drift?.changes ?? [];
    if (changes.length === 0) {
      this.console.out(`fw: wrote ${this.shown(path)}`);
      return 0;
    }
    const tables = [...new Set(changes.map((change) => change.table))];
    const what = changes.every((change) => change.kind === "create table")
      ? `creates the table${tables.length === 1 ? "" : "s"} ${tables.join(", ")}`
      : `${changes.length === 1 ? "1 change" : `${changes.length} changes`} in ${tables.join(", ")}`;
    this.console.out(`fw: wrote ${this.shown(path)} (${what}; apply it with \`${this.invocation("db migrate")}\`)`);
    for (const change of changes) {
      if (change.asks !== undefined) this.console.out(`fw: edit it first: ${change.table}: ${change.summary}; it stops with "fw: choose …" until you write that value in`);
      else if (change.refused !== undefined) this.console.out(`fw: it fails on this database as it is: ${change.table}: ${change.refused}`);
      else if (change.destructive !== undefined) this.console.out(`fw: destructive: ${change.table}: ${change.summary} (${change.destructive})`);
    }
    return 0;
  }

  private async seedCommand(): Promise<number> {
    if (this.seed === undefined) {
      this.console.err("fw: this app has no seed: pass `seed: async (db) => { … }` to DbApp to give `db seed` something to run.");
      return 1;
    }
    const db = await this.database.open();
    const { pending } = await migrationStatus(db, this.migrations);
    if (pending.length > 0) {
      this.console.err(`fw: cannot seed: ${pending.length} migration(s) not applied (${pending.join(", ")}). Run \`${this.invocation("db migrate")}\` first.`);
      return 1;
    }
    await this.seed(this.database);
    this.console.out(`fw: seeded ${this.database.description}`);
    return 0;
  }

  private async resetCommand(rest: readonly string[]): Promise<number> {
    const flags = parseResetFlags(rest);
    if (typeof flags === "string") {
      this.console.err(flags);
      return 2;
    }
    if (process.env["NODE_ENV"] === "production") {
      this.console.err("fw: db reset drops every table, so it runs in development only, and NODE_ENV is production here. Nothing was changed.");
      return 1;
    }
    const target = { postgresUrl: this.database.postgresUrl, description: this.database.description, env: process.env };
    const verdict = resetVerdict(target, flags, process.stdin.isTTY === true);
    if ("refuse" in verdict) {
      this.console.err(verdict.refuse);
      return 1;
    }
    if ("ask" in verdict && !(await this.confirmReset(verdict.ask))) {
      this.console.err("fw: db reset: not confirmed. Nothing was changed.");
      return 1;
    }
    const db = await this.database.open();
    await db.script("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
    this.console.out(`fw: dropped every table of ${db.description}`);
    const code = await this.migrateCommand();
    return code === 0 && this.seed !== undefined ? this.seedCommand() : code;
  }

  /** Asks at the terminal for the database's name before a server database is emptied. */
  private async confirmReset(database: string): Promise<boolean> {
    const { createInterface } = await import("node:readline/promises");
    const terminal = createInterface({ input: process.stdin, output: process.stderr });
    // Ctrl-D ends the input without an answer: that is a no.
    const ended = new Promise<string>((done) => terminal.once("close", () => done("")));
    try {
      const asked = terminal.question(`fw: db reset drops every table of ${this.database.description}. Type the database's name (${database}) to go on: `);
      const answer = await Promise.race([asked, ended]);
      return answer.trim() === database && database !== "";
    } finally {
      terminal.close();
    }
  }

  /** `hook` with the database prepared before the server listens, and the drift page in front of the app. */
  private devHook(hook: DevHook): DevHook {
    const drift = new DevDrift({
      database: this.database,
      tables: this.tables,
      migrations: this.migrations,
      log: (line) => this.console.err(line),
      changed: () => hook.reloadPages?.(),
    });
    return {
      sockets: hook.sockets,
      buildFailure: (instance) => hook.buildFailure(instance),
      decorate: (html) => hook.decorate(html),
      started: (url, listing, out) => hook.started(url, listing, out),
      close: () => hook.close(),
      ...(hook.reloadPages === undefined ? {} : { reloadPages: () => hook.reloadPages?.() }),
      beforeListen: async () => {
        try {
          // Held by fw dev, the embedded database is reached at once, while the previous app
          // still serves; one of the app's own is opened once that app let go of it.
          const held = await this.holdDatabase(hook);
          if (!held) await hook.beforeListen();
          await this.prepare(true);
          await this.devBoot?.(this.database);
          await this.prepareJobs(true);
          if (this.declaresTables) await this.checkDrift(drift);
          if (held) await hook.beforeListen();
        } catch (error) {
          hook.close(); // the supervisor's channel must not keep a process that cannot boot alive
          throw error;
        }
      },
      standIn: () => drift.standIn(),
    };
  }

  /**
   * Under `fw dev`, on the embedded database: the supervisor holds it across restarts and
   * serves it (pglite-host.ts), so a restart does not reopen it, and `db …` commands run beside
   * fw dev reach it too. False when there is nothing to hold (PostgreSQL, or no supervisor).
   */
  private async holdDatabase(hook: DevHook): Promise<boolean> {
    const directory = this.database.pgliteDirectory;
    if (directory === undefined) return false;
    if (hook.holdDatabase === undefined) return this.serveToTest(directory);
    try {
      await hook.holdDatabase(directory, new URL("./pglite-host.js", import.meta.url).href);
    } catch (error) {
      throw new BootError(error instanceof Error ? error.message : String(error));
    }
    return true;
  }

  /**
   * Run by fw/testing's startApp (`FW_SERVE_DATABASE=1`, dev only): the app holds its embedded
   * database and serves it as fw dev's supervisor does (pglite-host.ts), so the test's own
   * process reaches the same one (factories insert through it) while the app runs; the app's
   * own statements take the same socket. False otherwise: the app opens the directory itself.
   */
  private async serveToTest(directory: string): Promise<boolean> {
    if (process.env["FW_SERVE_DATABASE"] !== "1") return false;
    const { holdPglite } = await import("./pglite-host.js");
    try {
      this.served = await holdPglite(directory);
    } catch (error) {
      throw new BootError(error instanceof Error ? error.message : String(error));
    }
    return true;
  }

  /**
   * The drift page is a help, not a gate: a comparison that fails (the database went away) is
   * reported and the app serves without the page, as it would have before.
   */
  private async checkDrift(drift: DevDrift): Promise<void> {
    try {
      await drift.check();
    } catch (error) {
      this.console.err(`fw dev: could not compare the models with ${this.database.description} (${error instanceof Error ? error.message : String(error)}); no drift page until the next restart`);
    }
  }

  /**
   * Production: once the table and FW_SECRET are checked, opens the database and checks the
   * migrations before the server is built. (`dev` does it in its hook's `beforeListen`.)
   */
  protected override async beforeServe(dev: boolean): Promise<void> {
    if (!dev) {
      await this.prepare(false);
      await this.prepareJobs(false);
    }
  }

  /** Prepares the app's jobs on its database (after the migrations); a job's bad option stops the boot. */
  private async prepareJobs(dev: boolean): Promise<void> {
    if (!this.jobs.any) return;
    try {
      await this.jobs.prepare({ database: this.database, dev, log: (line) => this.console.err(line) });
    } catch (error) {
      if (error instanceof TypeError || error instanceof CannotOpenDatabase) throw new BootError(error.message);
      throw error;
    }
  }

  /** Opens the database and checks the migrations before the server listens. */
  private async prepare(dev: boolean): Promise<void> {
    try {
      if (!dev) this.checkMigrationsFound();
      const db = await this.database.open();
      const { pending } = await migrationStatus(db, this.migrations);
      if (pending.length === 0) return;
      if (dev) {
        for (const name of await migrate(db, this.migrations)) this.console.err(`fw: dev applied the pending migration ${name}`);
        return;
      }
      throw new BootError(
        `${pending.length} migration(s) in ${this.shown(this.migrations)} are not applied to ${db.description}: ${pending.join(", ")}. ` +
          `Apply them first with \`${this.invocation("db migrate")}\`.`,
      );
    } catch (error) {
      if (error instanceof CannotOpenDatabase || error instanceof MigrationError) throw new BootError(error.message);
      throw error;
    }
  }

  /**
   * Production: an app with table models and no migrations (run from another folder than its
   * own, or before its first `db new`) would serve a database without their tables, every page
   * reading them a 500. Refused before the database is opened, so nothing is made in the wrong folder.
   */
  private checkMigrationsFound(): void {
    if (this.tables.length === 0 || readMigrations(this.migrations).length > 0) return;
    const where = existsSync(this.migrations) ? `the migrations folder ${this.migrations} holds no migration` : `there is no migrations folder at ${this.migrations}`;
    const looked = this.migrationsOption === undefined ? ` (${MIGRATIONS_DIRECTORY} under the working directory)` : " (DbApp's `migrations`)";
    throw new BootError(
      `fw/db: this app has table models (${this.tables.map((table) => table.name).join(", ")}), and ${where}${looked}: it would serve a database without their tables, and every page reading them would fail. ` +
        `Run the app from its own folder, the one that holds ${this.migrationsOption ?? MIGRATIONS_DIRECTORY}, or write the first migration: build the app, then \`${this.invocation("db new NAME")}\` and \`${this.invocation("db migrate")}\`.`,
    );
  }

  /** How this app is run, for messages: `node dist/main.js db migrate`. */
  private invocation(command: string): string {
    const script = process.argv[1];
    return script === undefined ? `<app> ${command}` : `node ${this.shown(script)} ${command}`;
  }

  private shown(path: string): string {
    return relative(process.cwd(), path) || path;
  }
}
