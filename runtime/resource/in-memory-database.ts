import { InMemoryStore } from "./in-memory-store.js";
import type { FieldSpec, ModelSpec } from "./model.js";
import type { Draft, Store } from "./store.js";
import { DuplicateValue, MissingReference, StillReferenced } from "./store-errors.js";

/**
 * The in-memory engine's "database": every in-memory model's store of one app, made from the
 * models' specs, so that references between them behave as a database's foreign keys would
 * and unique fields as unique indexes. The generated table makes one per app and asks it for
 * each in-memory model's store.
 *
 * - A write naming in a reference field (`post: Id<Post>`) a row the target model's store does
 *   not hold throws `MissingReference`; nothing is written.
 * - Deleting a row that rows point at: `restrict` (the default) throws `StillReferenced` naming
 *   the models and fields that do, and deletes nothing; `cascade` deletes them too (and what
 *   points at them, by the same rules); `set null` clears their reference.
 * - A write repeating a unique field's value (`FieldSpec.unique`), or a composite unique's
 *   values together (`ModelSpec.unique`), throws `DuplicateValue` naming the fields.
 * - A field left absent is not checked, as SQL's NULL is not: an optional reference left empty,
 *   any number of rows without a unique value.
 *
 * Errors name a model by its table when it has one, else by its name (`Post`). Each check and
 * its write happen in one turn of the event loop, so concurrent requests cannot slip between.
 */
export class InMemoryDatabase {
  readonly #tables = new Map<string, Table>();

  /** The store of `model` (one per model name: asking twice answers the same store). */
  store<A>(model: ModelSpec<A>): Store<A> {
    let table = this.#tables.get(model.name);
    if (table === undefined) {
      table = { model: model as ModelSpec<unknown>, store: new CheckedStore<unknown>(model as ModelSpec<unknown>, this) };
      this.#tables.set(model.name, table);
    }
    return table.store as Store<A>;
  }

  /** @internal Throws when `row` (to be stored under `key`, or a new row) breaks a unique or names a missing row. */
  checkWrite(model: ModelSpec<unknown>, row: Record<string, unknown>, key: number | undefined): void {
    const own = this.table(model.name);
    for (const fields of uniquesOf(model)) {
      if (fields.some((field) => absent(row[field]))) continue;
      for (const [other, stored] of own.store.rows) {
        if (other === key) continue;
        const values = stored as Record<string, unknown>;
        if (fields.every((field) => same(values[field], row[field]))) throw new DuplicateValue(nameOf(model), fields[0] as string, fields);
      }
    }
    for (const field of model.fields) {
      const reference = field.reference;
      const value = row[field.name];
      if (reference === undefined || absent(value)) continue;
      const target = this.#tables.get(reference.model);
      if (field.input === "references" && target !== undefined) {
        // A list (many-to-many): every key it names must be a row of the listed model.
        const missing = Array.isArray(value) ? value.find((one) => typeof one !== "number" || !target.store.rows.has(one)) : value;
        if (missing !== undefined) throw new MissingReference(nameOf(model), field.name, missing);
        continue;
      }
      if (target === undefined) {
        throw new Error(
          `InMemoryDatabase: the field ${model.name}.${field.name} references the model ${reference.model}, which has no store in this database: ` +
            `make its store with the same InMemoryDatabase (memory.store(spec)) before writing.`,
        );
      }
      if (typeof value !== "number" || !target.store.rows.has(value)) throw new MissingReference(nameOf(model), field.name, value);
    }
  }

  /**
   * @internal Deletes the rows `key` of `model` takes with it (cascade) and clears the references
   * set null clears; throws `StillReferenced`, changing nothing, when a restricting row points
   * at any row the delete would remove. The row itself is left for its store to delete.
   */
  beforeDelete(model: ModelSpec<unknown>, key: number): void {
    const doomed = new Map<string, Set<number>>([[model.name, new Set([key])]]);
    const queue: [string, number][] = [[model.name, key]];
    const restricting: { model: ModelSpec<unknown>; key: number; field: FieldSpec }[] = [];
    const clearing: Clearing[] = [];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [name, gone] = next;
      for (const { table, field } of this.referencing(name)) {
        if (field.input === "references") {
          clearing.push(...listing(table, field, gone));
          continue;
        }
        for (const [childKey, child] of table.store.rows) {
          if ((child as Record<string, unknown>)[field.name] !== gone) continue;
          const rule = field.reference?.onDelete ?? "restrict";
          if (rule === "restrict") restricting.push({ model: table.model, key: childKey, field });
          else if (rule === "set null") clearing.push({ table, key: childKey, field: field.name });
          else {
            const keys = doomed.get(table.model.name) ?? new Set<number>();
            doomed.set(table.model.name, keys);
            if (!keys.has(childKey)) {
              keys.add(childKey);
              queue.push([table.model.name, childKey]);
            }
          }
        }
      }
    }
    const blocking = restricting.filter((row) => doomed.get(row.model.name)?.has(row.key) !== true);
    if (blocking.length > 0) {
      const by = new Map(blocking.map((row) => [`${row.model.name}.${row.field.name}`, { table: nameOf(row.model), field: row.field.name }]));
      throw new StillReferenced(nameOf(model), key, [...by.values()]);
    }
    for (const row of clearing) {
      if (doomed.get(row.table.model.name)?.has(row.key) === true) continue;
      const stored = row.table.store.rows.get(row.key);
      if (stored === undefined) continue;
      const cleared = { ...(stored as Record<string, unknown>) };
      if (row.without === undefined) delete cleared[row.field];
      else cleared[row.field] = (cleared[row.field] as readonly unknown[]).filter((one) => one !== row.without);
      row.table.store.rows.set(row.key, cleared);
    }
    for (const [name, keys] of doomed) {
      if (name === model.name) keys.delete(key);
      const table = this.table(name);
      for (const doomedKey of keys) table.store.rows.delete(doomedKey);
    }
  }

  /** Every model's reference fields that point at `name` (a model may point at itself). */
  private referencing(name: string): { table: Table; field: FieldSpec }[] {
    const found: { table: Table; field: FieldSpec }[] = [];
    for (const table of this.#tables.values()) {
      for (const field of table.model.fields) if (field.reference?.model === name) found.push({ table, field });
    }
    return found;
  }

  private table(name: string): Table {
    const table = this.#tables.get(name);
    if (table === undefined) throw new Error(`InMemoryDatabase: no store for the model ${name}.`);
    return table;
  }
}

interface Table {
  readonly model: ModelSpec<unknown>;
  readonly store: CheckedStore<unknown>;
}

/** A row's reference a delete clears: the field (set null), or one key out of a list (`without`). */
interface Clearing {
  readonly table: Table;
  readonly key: number;
  readonly field: string;
  readonly without?: number;
}

/** The rows whose list `field` names `gone`: deleting it takes it out of their lists, as a join table's cascade does. */
function listing(table: Table, field: FieldSpec, gone: number): Clearing[] {
  const found: Clearing[] = [];
  for (const [key, row] of table.store.rows) {
    const list = (row as Record<string, unknown>)[field.name];
    if (Array.isArray(list) && list.includes(gone)) found.push({ table, key, field: field.name, without: gone });
  }
  return found;
}

/** An in-memory store whose writes the database checks first, in the same turn. */
class CheckedStore<A> extends InMemoryStore<A> {
  constructor(
    private readonly model: ModelSpec<unknown>,
    private readonly database: InMemoryDatabase,
  ) {
    super(model.key, model);
  }

  override insert(draft: Draft<A>): Promise<A> {
    try {
      this.database.checkWrite(this.model, draft, undefined);
    } catch (error) {
      return Promise.reject(error);
    }
    return super.insert(draft);
  }

  override update(key: unknown, draft: Draft<A>): Promise<A | undefined> {
    if (typeof key === "number" && this.rows.has(key)) {
      try {
        this.database.checkWrite(this.model, draft, key);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return super.update(key, draft);
  }

  override delete(key: unknown): Promise<boolean> {
    if (typeof key === "number" && this.rows.has(key)) {
      try {
        this.database.beforeDelete(this.model, key);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return super.delete(key);
  }
}

/** The model's uniques as lists of fields: each unique field alone, then the composite ones. */
function uniquesOf(model: ModelSpec<unknown>): readonly (readonly string[])[] {
  return [...model.fields.filter((field) => field.unique === true).map((field) => [field.name]), ...(model.unique ?? [])];
}

function nameOf(model: ModelSpec<unknown>): string {
  return model.table ?? model.name;
}

function absent(value: unknown): boolean {
  return value === undefined || value === null;
}

function same(a: unknown, b: unknown): boolean {
  return a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b;
}
