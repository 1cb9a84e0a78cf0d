import { rmSync } from "node:fs";
import { relative } from "node:path";
import { NotFound, ServiceUnavailable, type HttpFailure } from "../http/failure.js";
import type { Method } from "../http/method.js";
import type { Request } from "../http/request.js";
import { Redirect, status, type Response } from "../http/response.js";
import { Route, type HttpRoute } from "../routing/route.js";
import type { DevStandIn } from "../server/dev-hook.js";
import type { Database } from "./database.js";
import { driftContent, FREEZE_PATH, SYNC_PATH } from "./drift-page.js";
import { migrate, newMigration } from "./migrations.js";
import { migrationName, schemaDrift, type SchemaDrift } from "./schema-diff.js";
import type { TableSpec } from "./table.js";
import { downSql } from "./schema-undo.js";

export interface DevDriftOptions {
  readonly database: Database;
  /** The tables the models derive (the generated module's `tables`). */
  readonly tables: readonly TableSpec[];
  readonly migrations: string;
  /** The terminal. */
  readonly log: (line: string) => void;
  /** Called once a Sync or Freeze changed the schema: the dev server reloads the open pages. */
  readonly changed?: () => void;
}

/** The value of the confirmation box a destructive change needs. */
const CONFIRMED = "destructive";

/**
 * The drift page's state in one `dev` process: checked after each boot (the models may have
 * changed with the rebuild) and after each Sync or Freeze. While the database differs from the
 * models, `standIn` gives the dev server the page and its two actions; otherwise nothing, so
 * `/fw/sync` and `/fw/freeze` are 404 like any unknown path.
 */
export class DevDrift {
  readonly #options: DevDriftOptions;
  readonly #standIn: DevStandIn;
  #drift: SchemaDrift | undefined;
  /** Sync and Freeze one at a time: each reads the schema afresh and changes it. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: DevDriftOptions) {
    this.#options = options;
    const routes = new Map<string, HttpRoute>([
      [`POST ${SYNC_PATH}`, Route.post(SYNC_PATH, (request) => this.#act(request, "sync"), { source: "fw/db drift page: Sync" })],
      [`POST ${FREEZE_PATH}`, Route.post(FREEZE_PATH, (request) => this.#act(request, "freeze"), { source: "fw/db drift page: Freeze" })],
    ]);
    // Any path: the route of every browser GET the page stands in for (as 500 log lines name it).
    const page = Route.get("/*path", (request) => this.#page(request, 503), { source: "fw/db drift page" });
    this.#standIn = {
      route: (method: Method, path: string) => routes.get(`${method} ${path}`),
      page,
      refusal: () => this.#refusal(),
    };
  }

  /** The drift now, when there is one. */
  get drift(): SchemaDrift | undefined {
    return this.#drift;
  }

  /** Compares the models with the database and says so in the terminal when they differ. */
  async check(): Promise<SchemaDrift | undefined> {
    const drift = await schemaDrift(this.#options.database, this.#options.tables);
    this.#drift = drift.changes.length === 0 ? undefined : drift;
    if (this.#drift !== undefined) {
      this.#options.log(
        `fw dev: the database does not match the models (${this.#summary(this.#drift)}): every page shows the drift page until you Sync or Freeze it\n${this.#drift.sql.trimEnd()}`,
      );
    }
    return this.#drift;
  }

  /** What the dev server puts in front of the app: the drift page while there is drift. */
  standIn(): DevStandIn | undefined {
    return this.#drift === undefined ? undefined : this.#standIn;
  }

  /** The page, for `request`, as shown on `instance` (the page a refused post came from), of `drift` (with the values posted). */
  #page(request: Request, code: number, instance = request.path, notice?: string, drift = this.#drift): Response {
    if (drift === undefined) throw new NotFound();
    const props = { status: code, instance, csrf: request.csrf, migrations: this.#shown(), name: migrationName(drift.changes) };
    return status(code, driftContent(drift, notice === undefined ? props : { ...props, notice }));
  }

  #refusal(): HttpFailure {
    const drift = this.#drift;
    const what = drift === undefined ? "" : ` (${this.#summary(drift)})`;
    return new ServiceUnavailable(
      `The dev database does not match the models${what}, so the app does not take this request. ` +
        "Open any page of the app to see the drift page, then Sync or Freeze the change and send this again.",
      1,
    );
  }

  #act(request: Request, action: "sync" | "freeze"): Promise<Response> {
    const run = this.#queue.catch(() => undefined).then(() => this.#apply(request, action));
    this.#queue = run;
    return run;
  }

  /**
   * Reads the drift afresh and applies exactly what the page showed, with the values typed for
   * new required columns: a form from a page that showed other changes is refused (409); a
   * change that cannot apply as it stands (a value missing or wrong, rows that would break a
   * new foreign key or unique) or a destructive change without its box ticked too (422, the
   * page again with what was typed). Nothing is applied then.
   */
  async #apply(request: Request, action: "sync" | "freeze"): Promise<Response> {
    const back = localPath(request.form.get("back"));
    const shown = await this.check();
    if (shown === undefined) return Redirect(back);
    const stale = (): Response => this.#page(request, 409, back, "The schema changed since that page was shown (a save, or another tab): review the changes below and try again.");
    if (request.form.get("drift") !== shown.fingerprint) return stale();
    const asked = shown.changes.some((change) => change.asks !== undefined);
    const drift = asked ? await schemaDrift(this.#options.database, this.#options.tables, (name) => request.form.get(name)) : shown;
    if (drift.fingerprint !== shown.fingerprint) return stale();
    if (drift.refused) {
      const reasons = drift.changes.filter((change) => change.refused !== undefined).map((change) => `${change.table}: ${change.refused}`);
      const count = reasons.length === 1 ? "A change cannot" : `${reasons.length} changes cannot`;
      return this.#page(request, 422, back, `Nothing was applied. ${count} apply as it stands: ${reasons.join("; ")}.`, drift);
    }
    if (drift.destructive && request.form.get("confirm") !== CONFIRMED) {
      return this.#page(request, 422, back, "Some changes (in red) delete or change data: tick the box to confirm them, then try again.", drift);
    }
    try {
      if (action === "sync") await this.#sync(drift);
      else await this.#freeze(drift, request.form.get("name"));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return this.#page(request, 409, back, `The database refused the change, so nothing was applied: ${reason}`, drift);
    }
    await this.check();
    this.#options.changed?.();
    return Redirect(back);
  }

  async #sync(drift: SchemaDrift): Promise<void> {
    await this.#options.database.transaction((tx) => tx.script(drift.sql));
    this.#options.log(`fw dev: synced the dev database (${this.#summary(drift)}); no migration records it yet`);
  }

  /** Writes the next migration, applies it with any other pending one; a migration that fails is removed again. */
  async #freeze(drift: SchemaDrift, asked: string | undefined): Promise<void> {
    const name = asked === undefined || asked.trim() === "" ? migrationName(drift.changes) : asked;
    const path = newMigration(this.#options.migrations, name, drift.sql, downSql(drift.changes));
    try {
      await migrate(this.#options.database, this.#options.migrations);
    } catch (error) {
      rmSync(path, { force: true });
      throw error;
    }
    this.#options.log(`fw dev: froze ${this.#summary(drift)} into ${relative(process.cwd(), path) || path} and applied it`);
  }

  #summary(drift: SchemaDrift): string {
    const tables = [...new Set(drift.changes.map((change) => change.table))];
    return `${drift.changes.length === 1 ? "1 change" : `${drift.changes.length} changes`} in ${tables.join(", ")}`;
  }

  #shown(): string {
    return relative(process.cwd(), this.#options.migrations) || this.#options.migrations;
  }
}

/** A path of this site to go back to, else `/`: never another origin (`//evil`, `/\\evil`, a URL). */
function localPath(value: string | undefined): string {
  if (value === undefined || !value.startsWith("/") || value.startsWith("//") || /[\\\r\n\0]/.test(value)) return "/";
  return value;
}
