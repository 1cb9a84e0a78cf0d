import { existsSync, watch, type FSWatcher } from "node:fs";
import { envFilesWanted, ENV_FILES, readEnvFiles } from "../server/env-files.js";
import { AppProcess, type ReadyMessage } from "./app-process.js";
import { EmitLedger } from "./emit-ledger.js";
import { sourcesChangedSince } from "./sources.js";
import { WatchCompiler } from "./watch-compiler.js";
import { formatDiagnostic, type BuildResult } from "./watch-output.js";

export interface SupervisorOptions {
  /** The tsconfig directory (or file) given to tspc. */
  readonly project: string;
  /** The directory the app runs in (the project's). */
  readonly cwd: string;
  /** The compiled entry, absolute. */
  readonly main: string;
  /** ts-patch's tspc.js, absolute. */
  readonly tspc: string;
  readonly env: NodeJS.ProcessEnv;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /** How long a stopping app may take before it is killed. Default 5 s. */
  readonly stopGraceMs?: number;
  /**
   * How long a starting app may take to listen before fw dev stops waiting. Default 120 s: a
   * first boot on fw/db's embedded database creates it (initdb in WebAssembly), which takes
   * tens of seconds on a busy machine, and a restart that stopped waiting would not pin the
   * port for the next one.
   */
  readonly readyTimeoutMs?: number;
}

/**
 * How long to wait for the compile that follows a stale one before acting on the stale one
 * anyway: a guard in case tsc's watcher never compiles again, not part of the normal path.
 */
const STALE_FALLBACK_MS = 3_000;

/** How long the events of one save of a `.env` file are gathered into one restart. */
const ENV_SETTLE_MS = 150;

/**
 * `fw dev`: rebuilds on save and keeps one app process serving the latest good build. After a
 * build without errors the app is restarted when its compiled code changed (and told the build
 * is fixed when it did not); after a failed build the running app is kept and sent the
 * diagnostics, which it shows in the browser. Builds are handled one at a time, in order.
 */
export class Supervisor {
  readonly #options: SupervisorOptions;
  readonly #ledger = new EmitLedger();
  readonly #env: NodeJS.ProcessEnv;
  #compiler: WatchCompiler | undefined;
  #app: AppProcess | undefined;
  #failing = false;
  #listing: string | undefined;
  #work: Promise<void> = Promise.resolve();
  #stopped = false;
  #stale: NodeJS.Timeout | undefined;
  #started = false;
  /** Watches the app's folder for its `.env` files, whose change restarts the app. */
  #envWatcher: FSWatcher | undefined;
  /** The app's embedded database, held across its restarts once it asked (`hold-database`). */
  #database: { readonly directory: string; readonly held: Promise<HeldDatabase> } | undefined;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#env = { ...options.env };
  }

  /** Starts watching; resolves with the exit code once the compiler is gone (stopped or crashed). */
  async run(): Promise<number> {
    const options = this.#options;
    options.out(`fw dev: building ${options.project} with tspc --watch; serving ${options.main}`);
    const compiler = new WatchCompiler({
      tspc: options.tspc,
      project: options.project,
      cwd: options.cwd,
      onBuild: (result) => this.#received(result),
      out: options.out,
      err: options.err,
    });
    this.#compiler = compiler;
    this.#watchEnvFiles();
    const code = await compiler.exited;
    this.#envWatcher?.close();
    if (this.#stopped) {
      await this.#work; // the app's stop, queued by `stop`
      return 0;
    }
    options.err(`fw dev: tspc exited (code ${code}); stopping the app`);
    await this.#stopApp();
    await this.#releaseDatabase();
    return 1;
  }

  /** Stops the compiler and the app, then closes the database it held. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#stale);
    this.#envWatcher?.close();
    await Promise.all([this.#compiler?.stop(), this.#enqueue(() => this.#stopApp())]);
    await this.#releaseDatabase();
  }

  /**
   * The app uses the embedded database in `directory`: open it here, once, with `module`'s
   * `holdPglite` (the app's own fw/db: fw dev knows the database only by this), and serve it to
   * the app processes (and to `db …` commands run beside fw dev), so a restart of the app
   * connects to it instead of reopening it. Resolves with the reason when it cannot be opened.
   */
  async #holdDatabase(directory: string, module: string): Promise<string | undefined> {
    if (this.#stopped) return "fw dev is stopping";
    if (this.#database?.directory !== directory) {
      // Another directory than before (the app's configuration changed): let go of the old one first.
      const previous = this.#database;
      const held = (async () => {
        await previous?.held.then((database) => database.close(), () => undefined);
        // The app's environment (its .env files too): the engine's settings read there (FW_PGLITE_COMPILER) are the app's.
        return holdWith(module, directory, this.#appEnv());
      })();
      this.#database = { directory, held };
    }
    const database = this.#database;
    try {
      await database.held;
      return undefined;
    } catch (error) {
      if (this.#database === database) this.#database = undefined; // the next start tries again
      return error instanceof Error ? error.message : String(error);
    }
  }

  async #releaseDatabase(): Promise<void> {
    const database = this.#database;
    this.#database = undefined;
    await database?.held.then(
      (held) => held.close(),
      () => undefined,
    );
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    this.#work = this.#work.then(task).catch((error: unknown) => this.#options.err(`fw dev: ${String(error)}`));
    return this.#work;
  }

  /**
   * A compile finished. What it wrote is recorded now (the next compile will not write it
   * again). If a source changed while it ran, another compile is coming and this one is stale:
   * acting on it would restart into, or report errors of, code that is already replaced.
   */
  #received(result: BuildResult): void {
    this.#ledger.record(result.emitted);
    clearTimeout(this.#stale);
    if (!sourcesChangedSince(this.#options.cwd, result.startedAt)) {
      void this.#enqueue(() => this.#built(result));
      return;
    }
    this.#stale = setTimeout(() => void this.#enqueue(() => this.#built(result)), STALE_FALLBACK_MS);
    this.#stale.unref();
  }

  async #built(result: BuildResult): Promise<void> {
    if (this.#stopped) return;
    // Printed here, once per build acted on (a stale compile's are not, being repeated by the next).
    for (const diagnostic of result.diagnostics) this.#options.out(formatDiagnostic(diagnostic));
    if (result.errors > 0) return this.#failed(result);
    const wasFailing = this.#failing;
    this.#failing = false;
    if (this.#app === undefined || this.#ledger.changed) return this.#restart();
    // The code the app runs is what the build produced: it only has to stop showing the errors.
    if (!wasFailing) return;
    this.#options.out("fw dev: build fixed; the running app already has this code, so the pages just reload");
    this.#app.send({ fw: "dev", type: "build-fixed" });
  }

  #failed(result: BuildResult): void {
    this.#failing = true;
    const errors = result.errors === 1 ? "1 error" : `${result.errors} errors`;
    if (this.#app === undefined) {
      this.#options.err(`fw dev: build failed with ${errors}; nothing is served until a build succeeds`);
      return;
    }
    this.#options.err(`fw dev: build failed with ${errors}; the app keeps running the last good build and shows the errors in the browser`);
    this.#app.send({ fw: "dev", type: "build-failed", diagnostics: result.diagnostics });
  }

  /**
   * Starts the new app while the old one still serves; once the new one has loaded its code,
   * the old one is stopped and the new one told to listen on the port it left.
   */
  async #restart(): Promise<void> {
    const started = performance.now();
    if (!existsSync(this.#options.main)) {
      await this.#stopApp();
      this.#options.err(`fw dev: ${this.#options.main} was not built; check --main (the compiled entry, relative to the project)`);
      return;
    }
    this.#ledger.markLoaded();
    const app = new AppProcess({ main: this.#options.main, cwd: this.#options.cwd, env: this.#appEnv(), holdDatabase: (directory, module) => this.#holdDatabase(directory, module) });
    void app.exited.then((code) => this.#exited(app, code));
    const timeout = this.#options.readyTimeoutMs ?? 120_000;
    const loaded = await within(app.loaded, timeout);
    await this.#stopApp();
    if (loaded === false) {
      this.#options.err(`fw dev: the app exited while starting (see its output above); it starts again after the next successful build`);
      return;
    }
    this.#app = app;
    app.listen();
    const ready = await within(app.ready, timeout);
    if (ready !== undefined) this.#ready(ready, performance.now() - started);
  }

  /**
   * The app's environment: fw dev's own, over the app's `.env` files read afresh at each start
   * (so code that reads `process.env` at the top of a module sees them too), unless
   * `FW_ENV_FILES=0`. A file that cannot be read is said, and the app starts without it.
   */
  #appEnv(): NodeJS.ProcessEnv {
    try {
      if (!envFilesWanted(undefined, this.#env)) return this.#env;
      return { ...readEnvFiles(this.#options.cwd).values, ...this.#env };
    } catch (error) {
      this.#options.err(`fw dev: ${error instanceof Error ? error.message : String(error)}`);
      return this.#env;
    }
  }

  /** A saved `.env` or `.env.local` restarts the running app, which reads it again. */
  #watchEnvFiles(): void {
    let timer: NodeJS.Timeout | undefined;
    try {
      this.#envWatcher = watch(this.#options.cwd, (_event, name) => {
        if (name === null || !ENV_FILES.includes(name) || this.#stopped) return;
        // One save makes several events (and an editor may write twice): one restart after they settle.
        clearTimeout(timer);
        timer = setTimeout(() => {
          void this.#enqueue(async () => {
            if (this.#app === undefined || this.#stopped) return;
            this.#options.out(`fw dev: ${name} changed; restarting the app`);
            await this.#restart();
          });
        }, ENV_SETTLE_MS);
        timer.unref();
      });
      this.#envWatcher.on("error", () => this.#envWatcher?.close());
    } catch {
      // A folder that cannot be watched: the files are still read at each restart.
    }
  }

  #ready(ready: ReadyMessage, ms: number): void {
    // A restart must come back on the same address, or the open pages could not reconnect.
    const port = /:(\d+)$/.exec(ready.url)?.[1];
    if (port !== undefined) this.#env["PORT"] = port;
    if (ready.listing !== this.#listing) {
      this.#options.out(ready.listing);
      this.#listing = ready.listing;
    }
    this.#options.out(`fw dev: ready on ${ready.url} (${this.#started ? "restarted" : "started"} in ${Math.round(ms)} ms)`);
    this.#started = true;
  }

  #exited(app: AppProcess, code: number | null): void {
    if (app.stopping || this.#app !== app) return;
    this.#app = undefined;
    this.#options.err(`fw dev: the app exited (code ${code}); it starts again after the next successful build`);
  }

  async #stopApp(): Promise<void> {
    const app = this.#app;
    this.#app = undefined;
    await app?.stop(this.#options.stopGraceMs ?? 5_000);
  }
}

/** A database the supervisor holds for the app. */
interface HeldDatabase {
  close(): Promise<void>;
}

/** Loads the app's fw/db module that holds an embedded database (a file URL the app sent), and holds `directory` with it, reading `env` as the app's. */
async function holdWith(module: string, directory: string, env: NodeJS.ProcessEnv): Promise<HeldDatabase> {
  if (!module.startsWith("file:")) throw new Error(`fw dev: the app asked to hold its database with ${module}, which is not a file URL`);
  const loaded = (await import(module)) as { holdPglite?: unknown };
  if (typeof loaded.holdPglite !== "function") throw new Error(`fw dev: ${module} does not export holdPglite (the app's fw is not the version of this fw dev)`);
  return (loaded.holdPglite as (directory: string, env: NodeJS.ProcessEnv) => Promise<HeldDatabase>)(directory, env);
}

/** `promise`'s value, or undefined once `ms` passed (a hang guard, not a wait). */
function within<T>(promise: Promise<T | undefined>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
