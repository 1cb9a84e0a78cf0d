import { spawn, type ChildProcess } from "node:child_process";
import { isToSupervisor, SUPERVISED_ENV, type ToApp, type ToSupervisor } from "./protocol.js";

/** The app's `ready` message: where it listens, and its route table. */
export type ReadyMessage = Extract<ToSupervisor, { type: "ready" }>;

export interface AppProcessOptions {
  /** The compiled entry, run as `node <main> dev`. */
  readonly main: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /**
   * The app asked the supervisor to hold its embedded database in `directory` (with `module`'s
   * `holdPglite`): resolves once it does, with the reason when it cannot. The app is told either way.
   */
  readonly holdDatabase?: (directory: string, module: string) => Promise<string | undefined>;
}

/**
 * One run of the app: `node --enable-source-maps <main> dev` with an IPC channel to it. Source
 * maps are on so stack traces (and the dev 500 page's source location) name the .ts files.
 */
export class AppProcess {
  readonly #child: ChildProcess;
  /** Resolves true once the app loaded its code and waits for `listen`; false when it exited first. */
  readonly loaded: Promise<boolean>;
  /** Resolves with the app's `ready` message, or undefined when it exited first. */
  readonly ready: Promise<ReadyMessage | undefined>;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  #stopping = false;

  constructor(options: AppProcessOptions) {
    this.#child = spawn(process.execPath, ["--enable-source-maps", options.main, "dev"], {
      cwd: options.cwd,
      env: { ...options.env, [SUPERVISED_ENV]: "1" },
      // Output goes straight to the terminal; the channel carries fw's own messages.
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.exited = new Promise((resolve) => {
      this.#child.once("exit", (code) => resolve(code));
      // A process that could not be spawned reports `error` and may never exit.
      this.#child.once("error", () => resolve(null));
    });
    const messages = (type: ToSupervisor["type"]): Promise<ToSupervisor | undefined> =>
      new Promise((resolve) => {
        this.#child.on("message", (message: unknown) => {
          if (isToSupervisor(message) && message.type === type) resolve(message);
        });
        void this.exited.then(() => resolve(undefined));
      });
    const hold = options.holdDatabase;
    this.#child.on("message", (message: unknown) => {
      if (hold === undefined || !isToSupervisor(message) || message.type !== "hold-database") return;
      const directory = message.directory;
      void hold(directory, message.module).then((error) => this.send({ fw: "dev", type: "database-held", directory, ...(error === undefined ? {} : { error }) }));
    });
    this.loaded = messages("loaded").then((message) => message !== undefined);
    this.ready = messages("ready").then((message) => (message?.type === "ready" ? message : undefined));
  }

  /** True once `stop` was called: an exit after that was asked for. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /** Lets the app listen (it has loaded and the port is free). */
  listen(): void {
    this.send({ fw: "dev", type: "listen" });
  }

  send(message: ToApp): void {
    if (this.#child.connected) this.#child.send(message);
  }

  /** SIGTERM (the app finishes in-flight requests), then SIGKILL if it is not gone within `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.#child.kill("SIGTERM");
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
