import { basename, resolve } from "node:path";
import { Secret } from "../http/secret.js";
import { SessionCodec } from "../http/session-codec.js";
import { BootError } from "../routing/boot-error.js";
import { checkRoutes } from "../routing/conflicts.js";
import { Matcher } from "../routing/matcher.js";
import type { OpenApiInfo } from "../openapi/document.js";
import type { RouteTable } from "../routing/route-table.js";
import { checkedOrigins } from "../ws/origin.js";
import { DEFAULT_WS_MAX_MESSAGE_BYTES, DEFAULT_WS_PING_INTERVAL_MS, DEFAULT_WS_SEND_TIMEOUT_MS } from "../ws/defaults.js";
import type { WsServer } from "../ws/server.js";
import { closeFanOut, installFanOut, type FanOut } from "../ws/fan-out.js";
import { fanOutSetting } from "../ws/fan-out-setting.js";
import type { DevHook } from "../server/dev-hook.js";
import { Dispatcher } from "../server/dispatch.js";
import { errorLine } from "../http/error-log.js";
import { TextLogger, type Logger } from "../log/logger.js";
import { setProcessLogger } from "../log/process-logger.js";
import { logSettings, type LogFormat, type LogLevel } from "../log/settings.js";
import type { AccessEntry } from "../log/logger.js";
import { metricsSettings, type MetricsSettings } from "../observe/metrics-settings.js";
import type { AppMetrics } from "../metrics/index.js";
import { tracingWanted } from "../observe/trace-settings.js";
import { tracer as processTracer } from "../observe/tracing.js";
import type { Tracing } from "../trace/index.js";
import { ALLOWED_HOSTS_ENV, HostPolicy, hostsFromEnv, LOOPBACK_HOSTS } from "../server/hosts.js";
import { defaultLayout, type Layout } from "../server/layout.js";
import { PRODUCTION_OVERRIDES_DEV, isProductionEnv } from "../server/run-mode.js";
import { devSecret, MissingSecret, productionSecret } from "../server/secrets.js";
import { startServer, type RunningServer, type Timeouts } from "../server/server.js";
import { Readiness } from "../server/readiness.js";
import { defaultPublicDir, PublicFiles } from "../server/static-files.js";
import { processConsole, type Console } from "./console.js";
import { loadDevHook } from "./load-dev-hook.js";
import type { AppPart, AppPartBoot, AppPartContext } from "./app-part.js";
import { loadEnvFiles, whereToSet } from "../server/env-files.js";
import { checkedOrigin, ORIGIN_VARIABLE, originHost, setPublicOrigin } from "../server/public-origin.js";
import type { HttpRoute, Route, WsRoute } from "../routing/route.js";
import { pageDefaults } from "../http/default-headers.js";
import { frameOptionsOf, inlineScriptHashes, policyDirectives, policyText, withScriptHash, type ContentSecurityPolicySetting } from "../server/content-security-policy.js";
import { hstsHeader, type StrictTransportSecurity } from "../server/strict-transport-security.js";
import { IN_WORKER_ENV, leavePrimary, workersRequest, type WorkersRequest } from "./workers-flag.js";
import { defaultUploadSettings, type UploadSettings } from "../server/multipart-body.js";

/** The default cap on a request body: 1 MiB (DESIGN.md). */
export const DEFAULT_MAX_BODY_SIZE = 1024 * 1024;
/** A session older than this (from when it was first written) reads as empty: 14 days. */
export const DEFAULT_SESSION_MAX_AGE_S = 14 * 24 * 60 * 60;
/** Node's slow-client guards (DESIGN.md): headers within 20 s, a whole request within 60 s, keep-alive 5 s. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const DEFAULT_SEND_TIMEOUT_MS = 30_000;
export const DEFAULT_HANDLER_TIMEOUT_MS = 30_000;

export interface HttpAppOptions {
  /** The route table, matched in order. */
  readonly routes: RouteTable;
  /** Default: `PORT` from the environment, else 3000. */
  readonly port?: number;
  /** Default: `HOST` from the environment, else 127.0.0.1 (set 0.0.0.0 to serve other machines). */
  readonly host?: string;
  /** Default 1 MiB; a larger body is answered 413. */
  readonly maxBodySize?: number;
  /** Default: `FW_SECRET` from the environment. A string is wrapped in a `Secret`. */
  readonly secret?: Secret | string;
  /** Older secrets whose cookies still verify (never used to sign): for rotation. */
  readonly previousSecrets?: readonly (Secret | string)[];
  /** The one frame every HTML reply comes back in. */
  readonly layout?: Layout;
  /** Seconds after which a session reads as empty. Default 14 days. */
  readonly sessionMaxAge?: number;
  /** One access-log entry per request (a line in text, an object in JSON). Default on. */
  readonly accessLog?: boolean;
  /**
   * How the log is written (docs/guides/production.md): `"json"`, one JSON object per line on
   * stdout through pino, each request's entries carrying its `requestId`; or `"text"`, the lines
   * for a person (`GET /posts 200 1.2ms`). Default: `FW_LOG_FORMAT`, else JSON in production and
   * text in dev.
   */
  readonly logFormat?: LogFormat;
  /** The lowest level written: trace, debug, info, warn, error, fatal or silent. Default: `FW_LOG_LEVEL`, else info. */
  readonly logLevel?: LogLevel;
  /**
   * Follow each logged failure (a 500, a WebSocket listener that threw) with its stack in
   * production too. Default off: production logs one line per failure (name, message cut at
   * 200 characters, incident id), never a stack; `dev` always logs stacks.
   */
  readonly logStacks?: boolean;
  /** Believe `X-Forwarded-Proto` (only behind a proxy of your own). Default off. */
  readonly trustProxy?: boolean;
  /** How long in-flight requests may finish after SIGTERM. Default 10 s. */
  readonly shutdownGraceMs?: number;
  /** A client must send its request line and headers within this, else 408. Default 20 s. */
  readonly headersTimeoutMs?: number;
  /** A client must send its whole request, body included, within this, else 408. Default 60 s. */
  readonly requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this. Default 5 s. */
  readonly keepAliveTimeoutMs?: number;
  /**
   * A client that stops taking an answer (part of it still waiting to be sent, nothing taken
   * for this long) has its connection closed, so a reader that never reads cannot hold the
   * connection and the answer's memory. Default 30 s.
   */
  readonly sendTimeoutMs?: number;
  /**
   * A handler whose answer has not settled after this long (a store or service call that never
   * returns) is answered with a 500 whose log line says so, instead of holding the request open
   * until shutdown. Its late result is dropped. Default 30 s.
   */
  readonly handlerTimeoutMs?: number;
  /**
   * Origins (`scheme://host[:port]`) besides the application's own whose pages may open its
   * WebSockets. A handshake from any other origin, or with no `Origin` header, gets 403.
   * Default none.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * The host names the `Host` header may carry (any port); any other is answered 400, WebSocket
   * handshakes included, which stops DNS rebinding. `example.com` is that name, `.example.com`
   * it and its subdomains, `[::1]` an IPv6 address, `*` any host. Default: `FW_ALLOWED_HOSTS`
   * (comma-separated), else in `dev` the loopback names only (localhost, 127.0.0.1, [::1]),
   * and in production the origin's host alone. The origin's host is always allowed. Production
   * with neither this nor an `origin` refuses to boot, saying which variable to set.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * The app's public origin, scheme and host (and port): `https://example.com`. Links that leave
   * the request (in mail) are built from it (`publicUrl`), never from a request's `Host`; in
   * production its host is the one allowed unless `allowedHosts` says more. Default:
   * `FW_ORIGIN`; in `dev` without one, the address the app serves on.
   */
  readonly origin?: string;
  /**
   * Read `.env` and `.env.local` from the working directory into `process.env` when the app is
   * made (a real environment variable wins; `.env.local` over `.env`). Default: everywhere but
   * production (`NODE_ENV=production`); `FW_ENV_FILES=1` or `0` in the environment decides over
   * this setting.
   */
  readonly envFiles?: boolean;
  /**
   * Optional modules that join the boot and shutdown (fw/mail's `Mailer`): each checks its
   * settings at boot and may add fw's own dev pages under `/fw`.
   */
  readonly parts?: readonly AppPart[];
  /**
   * The folder whose files are served at their path from `/` to a GET or HEAD no route answers
   * (`public/app.css` is `/app.css`), without reading the session. Relative to the working
   * directory. Default: the `public` folder beside the `dist/` the app runs from (else in the
   * working directory); nothing is served while it does not exist. `false` serves none.
   */
  readonly publicDir?: string | false;
  /** A WebSocket `send` rejects when the client has taken nothing for this long. Default 10 s. */
  readonly wsSendTimeoutMs?: number;
  /** How often open WebSockets are pinged; one that missed the previous ping is cut off. Default 30 s. */
  readonly wsPingIntervalMs?: number;
  /** The largest WebSocket message a client may send; bigger ones close the socket with 1009. Default 64 KiB. */
  readonly wsMaxMessageBytes?: number;
  /**
   * Carries named rooms' broadcasts (`new Room("chat")`) to the app's other processes. Default
   * none: a room reaches this process's sockets only. fw/db's `DbApp` on PostgreSQL installs
   * LISTEN/NOTIFY.
   */
  readonly fanOut?: FanOut;
  /**
   * The Content-Security-Policy of every HTML answer (docs/security.md). Directives are merged
   * over fw's default one by one (`{ "img-src": ["'self'", "https://cdn.example.com"] }`: a
   * directive named replaces fw's, `null` drops it); a string replaces the whole policy; `false`
   * sends none. A handler that sets the header keeps its own. Default: fw's policy
   * (`DEFAULT_CONTENT_SECURITY_POLICY`).
   */
  readonly contentSecurityPolicy?: ContentSecurityPolicySetting;
  /**
   * `Strict-Transport-Security` on every answer to a secure request (HTTPS, or `X-Forwarded-Proto:
   * https` with `trustProxy`), in production only: `{ maxAge, includeSubDomains, preload }`, or
   * `false` for none. Default: one year, this host only.
   */
  readonly strictTransportSecurity?: StrictTransportSecurity | false;
  /**
   * The app's OpenAPI document (docs/guides/json-apis.md): its `title`, `version`, `description`
   * and `servers`, and `serve: true` to serve it at `/fw/openapi.json` in production too (dev
   * always serves it). `<app> openapi` prints it. Default title "fw app", version "0.0.0".
   */
  readonly openapi?: OpenApiSettings;
  /**
   * `multipart/form-data` uploads (docs/guides/files.md): `spoolDir`, the folder file parts are
   * written to while a request is read (default: the system's temp folder; put it on the disk
   * your storage folder is on and storing a file is a rename), and `maxRequestBytes`, the most
   * one request's files may take together whatever its fields allow (default 1 GiB).
   */
  readonly uploads?: Partial<UploadSettings>;
}

/** What `HttpAppOptions.openapi` takes. */
export interface OpenApiSettings extends Partial<OpenApiInfo> {
  /** Serve `/fw/openapi.json` in production too. Default: in dev only (it lists every API route). */
  readonly serve?: boolean;
}

/** How `serve` runs: what `main` picks from the command, and what tests pass. */
export interface ServeOptions {
  readonly dev?: boolean;
  readonly port?: number;
  readonly host?: string;
  readonly accessLog?: boolean;
  /**
   * The dev hook to use instead of loading fw's dev module (tests and tools); only read when
   * `dev` is true.
   */
  readonly devHook?: DevHook;
}

/** The usage text; loaded with the `routes` command's module, which only commands need. */
async function usage(): Promise<string> {
  const { ROUTES_USAGE } = await import("../server/routes-command.js");
  const { OPENAPI_USAGE } = await import("../openapi/command.js");
  return `usage: <app> [command]
  (none)   boot the server (needs FW_SECRET)
  dev      serve with dev defaults (a dev secret kept under .fw/, stack traces on error pages,
           the reload socket and client; run it through \`fw dev\` to rebuild and restart on save)
${ROUTES_USAGE}
${OPENAPI_USAGE}`;
}

/**
 * The application entry (spec section 1): it names the routes and may set the server's
 * settings; it never listens itself. `main` reads the first program argument and runs it.
 * Settings can be passed to the constructor or overridden by a subclass's fields.
 */
export class HttpApp {
  routes: RouteTable;
  port: number;
  host: string;
  maxBodySize: number;
  secret: Secret | undefined;
  previousSecrets: readonly Secret[];
  layout: Layout;
  sessionMaxAge: number;
  accessLog: boolean;
  logFormat: LogFormat | undefined;
  logLevel: LogLevel | undefined;
  logStacks: boolean;
  trustProxy: boolean;
  shutdownGraceMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  sendTimeoutMs: number;
  handlerTimeoutMs: number;
  allowedOrigins: readonly string[];
  /** Undefined: the default for the mode (loopback names in `dev`, the origin's host in production). */
  allowedHosts: readonly string[] | undefined;
  /** The configured public origin (`FW_ORIGIN`); undefined: none (dev serves its own address). */
  origin: string | undefined;
  parts: readonly AppPart[];
  publicDir: string | false;
  wsSendTimeoutMs: number;
  wsPingIntervalMs: number;
  wsMaxMessageBytes: number;
  fanOut: FanOut | undefined;
  /**
   * Whether `serve` makes the process ready (`/fw/health` 200, a worker's "ready" to its primary)
   * once it listens; false for an app with more to start first, which calls `markReady` then
   * (`DbApp`: its jobs).
   */
  protected readonly readyWhenServed: boolean = true;
  #ready: (() => void) | undefined;
  /** Set by a reload's drain message (`--workers`, SIGHUP): the server lets idle keep-alive connections end by themselves. */
  private readonly drain = { keepIdle: false };
  /** The app or `FW_FANOUT` chose the fan-out (`none` included): fw/db installs none of its own. */
  protected readonly fanOutChosen: boolean;
  /** Undefined: fw's default policy. */
  contentSecurityPolicy: ContentSecurityPolicySetting | undefined;
  /** Undefined: the default (one year, in production). */
  strictTransportSecurity: StrictTransportSecurity | false | undefined;
  openapi: OpenApiSettings;
  uploads: UploadSettings;
  console: Console = processConsole;

  constructor(options: HttpAppOptions) {
    const env = process.env;
    // First: the settings read below (and DbApp's DATABASE_URL) may come from the app's .env.
    loadEnvFiles(process.cwd(), options.envFiles, env);
    this.routes = options.routes;
    this.port = options.port ?? portFrom(env["PORT"]);
    this.host = options.host ?? env["HOST"] ?? "127.0.0.1";
    this.maxBodySize = options.maxBodySize ?? DEFAULT_MAX_BODY_SIZE;
    this.uploads = { ...defaultUploadSettings(), ...options.uploads };
    this.secret = asSecret(options.secret);
    this.previousSecrets = (options.previousSecrets ?? []).map((s) => asSecret(s) as Secret);
    this.layout = options.layout ?? defaultLayout;
    this.sessionMaxAge = options.sessionMaxAge ?? DEFAULT_SESSION_MAX_AGE_S;
    this.accessLog = options.accessLog ?? true;
    this.logFormat = options.logFormat;
    this.logLevel = options.logLevel;
    this.logStacks = options.logStacks ?? false;
    this.trustProxy = options.trustProxy ?? false;
    this.shutdownGraceMs = options.shutdownGraceMs ?? 10_000;
    this.headersTimeoutMs = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
    this.sendTimeoutMs = options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
    this.handlerTimeoutMs = options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
    this.allowedOrigins = options.allowedOrigins ?? [];
    this.allowedHosts = options.allowedHosts ?? hostsFromEnv(env[ALLOWED_HOSTS_ENV]);
    this.origin = options.origin ?? nonEmpty(env[ORIGIN_VARIABLE]);
    this.parts = options.parts ?? [];
    this.publicDir = options.publicDir ?? defaultPublicDir(process.argv[1], process.cwd());
    this.wsSendTimeoutMs = options.wsSendTimeoutMs ?? DEFAULT_WS_SEND_TIMEOUT_MS;
    this.wsPingIntervalMs = options.wsPingIntervalMs ?? DEFAULT_WS_PING_INTERVAL_MS;
    this.wsMaxMessageBytes = options.wsMaxMessageBytes ?? DEFAULT_WS_MAX_MESSAGE_BYTES;
    // FW_FANOUT=redis://… (or none) chooses the fan-out when the app names none (ws/fan-out-setting.ts).
    const chosen = options.fanOut === undefined ? fanOutSetting(env, (line) => this.console.err(line)) : options.fanOut;
    this.fanOut = chosen ?? undefined;
    this.fanOutChosen = chosen !== undefined;
    this.contentSecurityPolicy = options.contentSecurityPolicy;
    this.strictTransportSecurity = options.strictTransportSecurity;
    this.openapi = options.openapi ?? {};
  }

  /**
   * Runs the command named by the first program argument and resolves with the exit code
   * (a served app resolves only once it has shut down).
   */
  async main(args: readonly string[] = process.argv.slice(2)): Promise<number> {
    const command = args[0];
    try {
      const workers = workersRequest(args, isProductionEnv());
      if (workers !== undefined) return await this.runWorkers(workers);
      const own = await this.command(args);
      if (own !== undefined) return own;
      if (command === undefined) return await this.runUntilStopped({});
      if (command === "dev") return await this.runUntilStopped({ dev: true });
      if (command === "routes") return await this.printRoutes(args.slice(1));
      if (command === "openapi") return await this.printOpenApi(args.slice(1));
    } catch (error) {
      if (error instanceof WorkersUsage) {
        this.console.err(`fw: ${error.message}`);
        return 2;
      }
      if (error instanceof BootError || error instanceof MissingSecret) {
        this.console.err(`fw: cannot boot: ${error.message}`);
        return 1;
      }
      throw error;
    } finally {
      // A worker's channel to its primary would keep it alive once served (or failed to boot):
      // let go of it, so it exits and the primary sees it.
      if (process.env[IN_WORKER_ENV] === "1") await leavePrimary();
    }
    // An app from `fw new` has a `db` script before it has a database: say where the commands come from.
    const db = command === "db" ? "\nThe db commands come with fw/db: boot the app with its DbApp instead of HttpApp (fw's docs/guides/database.md)." : "";
    this.console.err(`fw: unknown command ${JSON.stringify(command)}${db}\n${await usage()}${this.moreUsage()}`);
    return 2;
  }

  /**
   * The extension point of umbrella entries (fw/db's `DbApp`): their own commands, asked before
   * fw's. Resolves with the exit code, or undefined when `args[0]` is not one of theirs.
   * `HttpApp` has none. A `BootError` thrown here is reported like a boot failure.
   */
  protected async command(args: readonly string[]): Promise<number | undefined> {
    void args;
    return undefined;
  }

  /**
   * Why this app cannot run as several processes, or undefined when it can (an umbrella entry on
   * a one-process database says so: fw/db on PGlite).
   */
  protected workersRefusal(): string | undefined {
    return undefined;
  }

  /** `--workers N`: this process becomes the primary of N serving processes (node:cluster). */
  private async runWorkers(request: WorkersRequest): Promise<number> {
    if ("problem" in request) throw new WorkersUsage(request.problem);
    const refusal = this.workersRefusal();
    if (refusal !== undefined) throw new WorkersUsage(refusal);
    const { runPrimary } = await import("./workers.js");
    // The primary's own lines (the banner, a worker replaced) are in the log's format too.
    await this.startLog(false);
    return runPrimary({ count: request.count, args: request.args, console: this.console, metrics: metricsSettings(process.env) });
  }

  /** Usage lines an umbrella entry adds for its commands. */
  protected moreUsage(): string {
    return "";
  }

  /**
   * What an umbrella entry does before the server is built, once the table and the secret are
   * checked (`DbApp` opens the database and checks its migrations). A `BootError` thrown here
   * stops the boot like any boot problem. `HttpApp` has nothing to do.
   */
  protected async beforeServe(_dev: boolean): Promise<void> {}

  /** The boot is done: `/fw/health` answers `ok` from now on (see `readyWhenServed`). */
  protected markReady(): void {
    this.#ready?.();
    this.#ready = undefined;
  }

  /** Checks the table, then listens. Boot problems throw `BootError` / `MissingSecret`. */
  async serve(options: ServeOptions = {}): Promise<RunningServer> {
    // NODE_ENV=production wins over `dev` (docs/decisions.md): production never serves dev pages.
    const dev = (options.dev ?? false) && !isProductionEnv();
    if (options.dev === true && !dev) this.console.err(PRODUCTION_OVERRIDES_DEV);
    const { routes, warnings } = checkRoutes(this.routes.routes);
    for (const warning of warnings) this.console.err(`warning: ${warning}`);
    const secret = dev
      ? devSecret(this.secret, process.env, process.cwd(), (line) => this.console.err(line))
      : productionSecret(this.secret, process.env);
    const origin = this.origin === undefined ? undefined : checkedOrigin(this.origin, `origin (or ${ORIGIN_VARIABLE})`);
    const checked: Checked = {
      routes,
      secret,
      origin,
      policy: policyDirectives(this.contentSecurityPolicy),
      hsts: hstsHeader(this.strictTransportSecurity, dev),
      hosts: this.hostPolicy(dev, origin),
    };
    const metricsWanted = metricsSettings(process.env);
    const tracesWanted = tracingWanted(process.env);
    const logger = await this.startLog(dev);
    // `/fw/health` says "starting" from the moment the server listens until this boot is done.
    const readiness = new Readiness();
    let running: RunningServer & { readonly routes: number };
    let metrics: AppMetrics | undefined;
    let tracing: Tracing | undefined;
    try {
      metrics = metricsWanted === undefined ? undefined : await this.startMetrics(metricsWanted);
      tracing = tracesWanted === undefined ? undefined : await this.startTracing(tracesWanted, logger);
      const added = await this.bootParts(dev, origin);
      // After the cheap checks (table, secret, hosts, parts), so a missing FW_SECRET is told before a database opens.
      await this.beforeServe(dev);
      const own = metrics?.route === undefined ? [] : [metrics.route];
      running = await this.listen(dev, options, { ...checked, routes: [...own, ...added, ...routes], logger, metrics, readiness });
    } catch (error) {
      await metrics?.close();
      await tracing?.close();
      await this.closeParts();
      this.endLog();
      throw error;
    }
    const opened = { metrics, tracing };
    const served = running;
    this.#ready = (): void => {
      readiness.state = "ready";
      // A worker tells its primary once it is ready (a reload waits for that); the banner is the primary's.
      if (process.env[IN_WORKER_ENV] === "1") process.send?.({ fw: "listening", url: served.url, routes: served.routes });
    };
    if (this.readyWhenServed) this.markReady();
    return {
      url: running.url,
      port: running.port,
      server: running.server,
      close: () => {
        readiness.state = "stopping";
        return running.close().finally(async () => {
          await opened.metrics?.close();
          await this.closeParts();
          // Last: the parts' and the jobs' last spans go out with it.
          await opened.tracing?.close();
        });
      },
    };
  }

  /** Traces (runtime/trace, OpenTelemetry, loaded only when the OTEL_* variables ask: observe/trace-settings.ts). */
  private async startTracing(exporter: "otlp" | "console", logger: Logger): Promise<Tracing> {
    const { startTracing } = await import("../trace/index.js");
    const serviceName = process.env["npm_package_name"] ?? basename(process.cwd());
    return startTracing({ exporter, serviceName, log: (line) => logger.write("warn", line) });
  }

  /** Metrics (fw/metrics, loaded only when configured: `FW_METRICS_TOKEN`, `FW_METRICS_PORT`). */
  private async startMetrics(settings: MetricsSettings): Promise<AppMetrics> {
    const { startMetrics } = await import("../metrics/index.js");
    const metrics = await startMetrics(settings, process.env[IN_WORKER_ENV] === "1");
    if (metrics.listener !== undefined) this.console.out(`fw: metrics on ${metrics.listener.url}/metrics`);
    return metrics;
  }

  /** The console as the app set it, while serving in JSON swaps it for one that logs (`startLog`). */
  #ownConsole: Console | undefined;

  /**
   * The logger of this boot, made the process's (fw/jobs, fw/db and the app's `log` write through
   * it). In JSON, every line the app prints from here on is a JSON object too (the console's
   * `out` at info, `err` at warn), so the log is JSON throughout; a boot that fails puts the
   * console back, so why it failed is told on stderr in plain text, to whoever started it.
   */
  private async startLog(dev: boolean): Promise<Logger> {
    const { format, level } = logSettings({ ...(this.logFormat === undefined ? {} : { format: this.logFormat }), ...(this.logLevel === undefined ? {} : { level: this.logLevel }) }, process.env, dev);
    const stacks = dev || this.logStacks;
    const own = this.#ownConsole ?? this.console;
    let logger: Logger;
    if (format === "text") {
      logger = new TextLogger({ sink: { out: (line) => this.console.out(line), err: (line) => this.console.err(line) }, level, stacks });
    } else {
      const { jsonLogger } = await import("../log/json-logger.js");
      logger = await jsonLogger({ level, stacks, ...(own === processConsole ? {} : { sink: own }) });
      this.#ownConsole = own;
      this.console = { out: (line) => logger.write("info", line), err: (line) => logger.write("warn", line) };
    }
    setProcessLogger(logger);
    return logger;
  }

  /** Puts back the console `startLog` swapped (a boot that failed). */
  private endLog(): void {
    if (this.#ownConsole === undefined) return;
    this.console = this.#ownConsole;
    this.#ownConsole = undefined;
  }

  /** Builds the server from the checked settings and listens. */
  private async listen(dev: boolean, options: ServeOptions, checked: Checked & { readonly logger: Logger; readonly metrics: AppMetrics | undefined; readonly readiness: Readiness }): Promise<RunningServer & { readonly routes: number }> {
    const { routes, secret, policy, hsts, logger, metrics, readiness } = checked;
    const matcher = new Matcher(routes);
    const codec = new SessionCodec([secret, ...this.previousSecrets], this.sessionMaxAge * 1000);
    const hook = dev ? (options.devHook ?? (await loadDevHook())) : undefined;
    const timeouts = this.timeouts();
    const pageHeaders = pageHeadersOf(policy, hook);
    const dispatcher = new Dispatcher({
      matcher,
      codec,
      layout: this.layout,
      maxBodySize: this.maxBodySize,
      uploads: { spoolDir: resolve(this.uploads.spoolDir), maxRequestBytes: positive("uploads.maxRequestBytes", this.uploads.maxRequestBytes) },
      handlerTimeoutMs: positive("handlerTimeoutMs", this.handlerTimeoutMs),
      // Modules only dev needs are loaded in dev alone: a production server idles without them.
      ...(dev ? { details: (await import("../server/dev-details.js")).devDetails } : {}),
      routes,
      ...(hook === undefined ? {} : { hook }),
      trustProxy: this.trustProxy,
      hosts: checked.hosts,
      logError: (what, cause, incident, requestId) => {
        logger.failure({ what, cause, incident, requestId });
        processTracer()?.failed(cause, incident);
      },
      ...(this.publicDir === false ? {} : { files: new PublicFiles(resolve(this.publicDir), pageHeaders) }),
      pageHeaders,
      ...(hsts === undefined ? {} : { hsts }),
      ...(dev || this.openapi.serve === true ? { openApi: await this.openApiServed(routes) } : {}),
      readiness,
    });
    const reserved = this.reservedSockets(hook);
    // The socket server is loaded only for an app that has sockets, and it loads `ws` itself on
    // the first handshake it accepts: until a socket is used, the app idles without `ws`.
    const needsSockets = reserved.length > 0 || routes.some((route) => route.case === "ws");
    const { WsServer: Sockets } = needsSockets ? await import("../ws/server.js") : { WsServer: undefined };
    const sockets: WsServer | undefined = Sockets === undefined ? undefined : new Sockets({
      table: matcher,
      reserved,
      codec,
      identify: this.routes.identify,
      allowedOrigins: checkedOrigins(this.allowedOrigins),
      trustProxy: this.trustProxy,
      sendTimeoutMs: positive("wsSendTimeoutMs", this.wsSendTimeoutMs),
      pingIntervalMs: positive("wsPingIntervalMs", this.wsPingIntervalMs),
      maxMessageBytes: positive("wsMaxMessageBytes", this.wsMaxMessageBytes),
      logError: (what, cause, incident) => logger.failure({ what, cause, incident }),
      dev,
    });
    await hook?.beforeListen();
    let running: RunningServer;
    const fanOut = this.fanOut;
    try {
      if (fanOut !== undefined) await installFanOut(fanOut);
      running = await startServer(dispatcher, sockets, {
        port: options.port ?? this.port,
        host: options.host ?? this.host,
        observe: observer(options.accessLog ?? this.accessLog ? logger : undefined, metrics),
        tracer: processTracer(),
        graceMs: this.shutdownGraceMs,
        drain: this.drain,
        timeouts,
        logError: (what, cause) => logger.failure({ what, cause }),
      });
    } catch (error) {
      hook?.close(); // a port in use, say: the supervisor's channel must not keep the process up
      if (fanOut !== undefined) await closeFanOut(fanOut).catch(() => undefined);
      throw error;
    }
    // Links that leave a request (mail) name the configured origin; dev without one, its own address.
    setPublicOrigin(checked.origin ?? (dev ? running.url : undefined), NO_ORIGIN);
    if (fanOut !== undefined) {
      const served = running;
      running = { ...served, close: () => served.close().finally(() => closeFanOut(fanOut)) };
    }
    // A worker's banner is its primary's to print, once for all of them (`serve` tells it when ready).
    if (process.env[IN_WORKER_ENV] !== "1") this.console.out(`fw: serving ${routes.length} routes on ${running.url}${dev ? " (dev)" : ""}`);
    if (hook === undefined) return { ...running, routes: routes.length };
    const { listRoutes } = await import("../server/routes-listing.js");
    hook.started(running.url, listRoutes(routes, []).trimEnd(), (text) => this.console.out(text));
    return { ...running, routes: routes.length, close: () => running.close().finally(() => hook.close()) };
  }

  /**
   * The hosts this app answers for: the list given (with the origin's host), else the origin's
   * host (and in dev the loopback names). Production with neither refuses to boot: it would
   * answer any `Host`, which DNS rebinding and forged links feed on.
   */
  private hostPolicy(dev: boolean, origin: string | undefined): HostPolicy | undefined {
    const own = origin === undefined ? [] : [originHost(origin)];
    const given = this.allowedHosts;
    if (given !== undefined) return HostPolicy.of(given.length === 0 ? given : [...given, ...own], `allowedHosts (or ${ALLOWED_HOSTS_ENV})`);
    if (dev) return HostPolicy.of([...LOOPBACK_HOSTS, ...own], "allowedHosts");
    if (origin !== undefined) return HostPolicy.of(own, `origin (or ${ORIGIN_VARIABLE})`);
    throw new BootError(
      `production needs to know which host names it answers for, and neither ${ORIGIN_VARIABLE} nor ${ALLOWED_HOSTS_ENV} is set. ` +
        `Set ${ORIGIN_VARIABLE} to the app's public address (${ORIGIN_VARIABLE}=https://example.com: its host is then the one served, and links in mail name it), ` +
        `or ${ALLOWED_HOSTS_ENV} to the names it answers for, comma-separated ("*" for any, behind a proxy that checks the Host itself). ` +
        whereToSet(ORIGIN_VARIABLE, "https://example.com"),
    );
  }

  /** Boots each part in order; the routes they add, in that order. */
  private async bootParts(dev: boolean, origin: string | undefined): Promise<HttpRoute[]> {
    const routes: HttpRoute[] = [];
    const context: AppPartContext = {
      dev,
      root: process.cwd(),
      origin,
      missing: (name: string, why: string, example?: string) => new BootError(`${name} is not set: ${why}. ${whereToSet(name, example)}`),
      notice: (line: string) => this.console.err(line),
    };
    for (const part of this.parts) {
      const booted: AppPartBoot | void = await part.boot(context);
      if (booted?.routes !== undefined) routes.push(...booted.routes);
    }
    return routes;
  }

  /** Closes every part; one that fails to close is logged, and the others still close. */
  private async closeParts(): Promise<void> {
    for (const part of this.parts) {
      try {
        await part.close?.();
      } catch (error) {
        this.console.err(errorLine({ what: `${part.name} failed to close`, cause: error, stacks: true }));
      }
    }
  }

  /** The slow-client guards, checked before anything listens. */
  private timeouts(): Timeouts {
    const headersMs = positive("headersTimeoutMs", this.headersTimeoutMs);
    const requestMs = positive("requestTimeoutMs", this.requestTimeoutMs);
    if (headersMs > requestMs) {
      throw new BootError(`headersTimeoutMs (${headersMs}) must not exceed requestTimeoutMs (${requestMs}): the headers are part of the request.`);
    }
    return {
      headersMs,
      requestMs,
      keepAliveMs: positive("keepAliveTimeoutMs", this.keepAliveTimeoutMs),
      sendMs: positive("sendTimeoutMs", this.sendTimeoutMs),
    };
  }

  /**
   * fw's own WebSocket routes under `/fw`, asked before the table (spec 4.6): in dev, the
   * dev server's `WS /fw/reload`; none in production.
   */
  private reservedSockets(hook: DevHook | undefined): readonly WsRoute[] {
    return hook?.sockets ?? [];
  }

  /**
   * Serves until SIGTERM or SIGINT, then stops accepting, lets in-flight requests finish. The
   * signals are handled from before the boot: the banner ("serving … routes") is printed while
   * `serve` may still have work to start (DbApp's jobs), and a stop that arrives then waits for
   * the boot and closes what it started, instead of Node's default of ending the process at once.
   */
  private async runUntilStopped(options: ServeOptions): Promise<number> {
    let stopped = false;
    let onStop: (() => void) | undefined;
    // A worker is also stopped by its primary's message: Ctrl-C signals the primary and every
    // worker at once, and a second signal would end a worker at once (Node's default).
    const told = (message: unknown): void => {
      if (!isStopMessage(message)) return;
      // A reload's old worker: its idle keep-alive connections end on their own, none cut mid-send.
      if ((message as { drain?: unknown }).drain === true) this.drain.keepIdle = true;
      stop();
    };
    const unlisten = (): void => void process.off("SIGTERM", stop).off("SIGINT", stop).off("message", told).off("SIGHUP", ignoreHangUp);
    const stop = (): void => {
      unlisten();
      stopped = true;
      onStop?.();
    };
    process.on("SIGTERM", stop).on("SIGINT", stop);
    // A worker stops when its primary says (SIGHUP is the primary's reload: a hang-up sent to the
    // whole process group must not end the workers, Node's default).
    if (process.env[IN_WORKER_ENV] === "1") process.on("message", told).on("SIGHUP", ignoreHangUp);
    let running: RunningServer;
    try {
      running = await this.serve(options);
    } catch (error) {
      unlisten();
      throw error;
    }
    await new Promise<void>((resolve) => {
      onStop = (): void => {
        this.console.out("fw: stopping: finishing in-flight requests");
        void running.close().then(resolve);
      };
      if (stopped) onStop();
    });
    return 0;
  }

  /** `openapi`, `openapi --out FILE`: the document of the checked table's API routes. */
  private async printOpenApi(args: readonly string[]): Promise<number> {
    const { openApiCommand } = await import("../openapi/command.js");
    return openApiCommand(args, checkRoutes(this.routes.routes).routes, this.openApiInfo(), this.console);
  }

  /** The document `/fw/openapi.json` answers, made on the first request and kept (the table does not change while served). */
  private async openApiServed(routes: readonly Route[]): Promise<() => Promise<string>> {
    const { openApiText } = await import("../openapi/command.js");
    let text: Promise<string> | undefined;
    return () => (text ??= openApiText(routes, this.openApiInfo()));
  }

  private openApiInfo(): OpenApiInfo {
    const { title = "fw app", version = "0.0.0", description, servers } = this.openapi;
    return { title, version, ...(description === undefined ? {} : { description }), ...(servers === undefined ? {} : { servers }) };
  }

  /** `routes`, `routes --json`, `routes --match "GET /path"`. */
  private async printRoutes(args: readonly string[]): Promise<number> {
    const { routesCommand } = await import("../server/routes-command.js");
    return routesCommand(args, checkRoutes(this.routes.routes), this.console);
  }
}

/**
 * What every HTML answer carries: the policy as text, and `X-Frame-Options` saying what its
 * `frame-ancestors` says. In dev the inline scripts the dev hook adds to every page (the reload
 * client) are allowed by their hashes, so dev pages work under the policy production sends.
 */
function pageHeadersOf(policy: ReadonlyMap<string, readonly string[]> | undefined, hook: DevHook | undefined): string[] {
  let shown = policy;
  if (shown !== undefined && hook !== undefined) for (const hash of inlineScriptHashes(hook.decorate(""))) shown = withScriptHash(shown, hash);
  return pageDefaults(shown === undefined ? undefined : policyText(shown), frameOptionsOf(shown));
}

/** What is told of each answered request: the access log, metrics, both or neither (then the server reads no clock). */
function observer(logger: Logger | undefined, metrics: AppMetrics | undefined): ((entry: AccessEntry) => void) | undefined {
  if (logger === undefined) return metrics === undefined ? undefined : (entry) => metrics.observe(entry);
  if (metrics === undefined) return (entry) => logger.access(entry);
  return (entry) => {
    logger.access(entry);
    metrics.observe(entry);
  };
}

/** What `serve` checked before anything opens or listens. */
interface Checked {
  readonly routes: readonly Route[];
  readonly secret: Secret;
  readonly origin: string | undefined;
  readonly policy: ReadonlyMap<string, readonly string[]> | undefined;
  readonly hsts: string | undefined;
  readonly hosts: HostPolicy | undefined;
}

/** Why production without `FW_ORIGIN` has no public origin (what `publicUrl` throws). */
const NO_ORIGIN =
  `${ORIGIN_VARIABLE} is not set, and production never builds a link from a request's Host header (the client writes it). ` +
  `Set ${ORIGIN_VARIABLE} to the app's public address, such as https://example.com.`;

/** `--workers` used wrongly: usage, exit code 2. */
class WorkersUsage extends Error {}

function ignoreHangUp(): void {}

function isStopMessage(message: unknown): boolean {
  return typeof message === "object" && message !== null && (message as { fw?: unknown }).fw === "stop";
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

function asSecret(value: Secret | string | undefined): Secret | undefined {
  return typeof value === "string" ? new Secret(value) : value;
}

function portFrom(value: string | undefined): number {
  if (value === undefined || value === "") return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new BootError(`PORT=${JSON.stringify(value)} is not a port number (0-65535).`);
  }
  return port;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new BootError(`${name} must be a positive number, not ${value}.`);
  }
  return value;
}
