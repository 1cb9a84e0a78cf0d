import type { ModelSpec } from "../resource/model.js";
import type { ListPage, Page, Query, SearchPage, SearchResults } from "../resource/query.js";
import { ScopedStore } from "../resource/scoped-store.js";
import type { AllRows, Draft, Store, Versioned } from "../resource/store.js";
import type { Id } from "../resource/types.js";
import { currentActor } from "./actor.js";
import type { Actor, AuditAction, AuditLog, AuditRecord, AuditValue } from "./audit-log.js";

/**
 * A model's every row (`AllRows<M>`, the escape hatch by name) as the back office's pages write
 * them: each insert, update and delete runs with its audit record (the admin the request acts
 * for, the row before and after), both in one transaction on a database. Reads go straight to
 * the rows. A row made here belongs to the admin who made it (a model with an owner field).
 */
export class AuditedRows<A> implements Store<A> {
  /** Present when the rows are versioned (fw/db's): the back office's Edit form then carries the version. */
  readonly read?: (key: Id<A>) => Promise<Versioned<A> | undefined>;

  constructor(
    private readonly rows: AllRows<A>,
    private readonly spec: ModelSpec<A>,
    private readonly log: AuditLog,
  ) {
    const read = rows.read;
    if (read !== undefined) this.read = (key) => read.call(rows, key);
  }

  list(page: ListPage<A>): Promise<Page<A>> {
    return this.rows.list(page);
  }

  count(query?: Query<A>): Promise<number> {
    return this.rows.count(query);
  }

  search(text: string, page?: SearchPage<A>): Promise<SearchResults<A>> {
    return this.rows.search(text, page);
  }

  get(key: Id<A>): Promise<A | undefined> {
    return this.rows.get(key);
  }

  insert(draft: Draft<A>): Promise<A> {
    const actor = currentActor();
    return this.log.write(async (join) => {
      const rows = await join(this.rows);
      const into = rows instanceof ScopedStore ? (rows as ScopedStore<A>).for(String(actor.id)) : rows;
      const made = await into.insert(draft);
      return { result: made, record: this.record("create", this.keyOf(made), undefined, made, actor) };
    });
  }

  update(key: Id<A>, draft: Draft<A>, expected?: number): Promise<A | undefined> {
    const actor = currentActor();
    return this.log.write(async (join) => {
      const rows = await join(this.rows);
      const before = await rows.get(key);
      if (before === undefined) return { result: undefined };
      const after = expected === undefined ? await rows.update(key, draft) : await rows.update(key, draft, expected);
      return { result: after, ...(after === undefined ? {} : { record: this.record("update", String(key), before, after, actor) }) };
    });
  }

  delete(key: Id<A>): Promise<boolean> {
    const actor = currentActor();
    return this.log.write(async (join) => {
      const rows = await join(this.rows);
      const before = await rows.get(key);
      if (before === undefined) return { result: false };
      const deleted = await rows.delete(key);
      return { result: deleted, ...(deleted ? { record: this.record("delete", String(key), before, undefined, actor) } : {}) };
    });
  }

  private keyOf(row: A): string {
    return String((row as Record<string, unknown>)[this.spec.key]);
  }

  private record(action: AuditAction, key: string, before: A | undefined, after: A | undefined, actor: Actor): AuditRecord {
    return {
      actor,
      action,
      model: this.spec.name,
      key,
      ...(before === undefined ? {} : { before: rowJson(this.spec, before) }),
      ...(after === undefined ? {} : { after: rowJson(this.spec, after) }),
    };
  }
}

/**
 * A row as the audit log keeps it: its key, owner and model fields alone (nothing else a row
 * object may carry), each as JSON: a time as ISO text, a file as what describes it (name, type,
 * size, key), never where it is served.
 */
export function rowJson(spec: Pick<ModelSpec<unknown>, "key" | "owner" | "fields">, row: unknown): { readonly [field: string]: AuditValue } {
  const values = row as Record<string, unknown>;
  const names = [spec.key, ...(spec.owner === undefined ? [] : [spec.owner]), ...spec.fields.map((field) => field.name)];
  const out: Record<string, AuditValue> = {};
  for (const name of new Set(names)) {
    const value = jsonOf(values[name]);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function jsonOf(value: unknown): AuditValue | undefined {
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return undefined;
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) return value.map((item) => jsonOf(item) ?? null);
  const out: Record<string, AuditValue> = {};
  for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
    // A stored file's `url` is where it is served today, not part of the row.
    if (name === "url") continue;
    const json = jsonOf(item);
    if (json !== undefined) out[name] = json;
  }
  return out;
}
