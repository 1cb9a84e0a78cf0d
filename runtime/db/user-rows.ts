/**
 * The rows of the app's model tables that name a user (issue 41, a user's own data): every
 * column that is a foreign key to the users table, the owner's and any other. What deleting an
 * account and "Download my data" work from. The tables are those the app's stores were made for
 * on this database (`tablesOf`): every table model's, made when the generated route module loads.
 */
import { wordsOf } from "../resource/words.js";
import type { OnDelete } from "../resource/types.js";
import type { Database, Queryable } from "./database.js";
import { quoteIdentifier as q } from "./identifier.js";
import { tablesOf } from "./sql-errors.js";
import { SqlTable } from "./sql-table.js";
import { TEAMS_TABLE } from "./sql-teams.js";
import type { TableSpec } from "./table.js";

/** One column of a table that holds a user's key, and what deleting that user does to its rows. */
export interface UserColumn {
  readonly field: string;
  readonly column: string;
  readonly onDelete: OnDelete;
}

/** A model table that names users, in one or more columns. */
export interface NamingTable {
  readonly spec: TableSpec;
  /** The model's name (`TimeEntry`) and how pages say many of its rows ("time entries"). */
  readonly model: string;
  readonly many: string;
  readonly columns: readonly UserColumn[];
}

/** The rows of one model that name a user, as the model reads them. */
export interface ModelRows {
  readonly model: string;
  readonly table: TableSpec;
  readonly rows: readonly Record<string, unknown>[];
}

/** Rows read per statement while gathering a user's rows. */
const PAGE = 500;
/** How many foreign keys deep a deletion's cascade is followed to find the files it takes along. */
const MAX_CASCADE_DEPTH = 8;

export class UserRows {
  constructor(
    private readonly db: Database,
    private readonly usersTable: string,
  ) {}

  /** The model tables that name users, by table name. */
  naming(): NamingTable[] {
    return tablesOf(this.db)
      .flatMap((spec) => {
        const columns = spec.columns.flatMap((c) => (c.references?.table === this.usersTable ? [{ field: c.field, column: c.column, onDelete: c.references.onDelete ?? "restrict" }] : []));
        if (columns.length === 0) return [];
        const model = spec.model ?? { name: spec.name, path: `/${spec.name.replace(/_/g, "-")}` };
        return [{ spec, model: model.name, many: wordsOf(model).many.toLowerCase(), columns }];
      })
      .sort((a, b) => (a.spec.name < b.spec.name ? -1 : 1));
  }

  /**
   * The models (in the plural: "time entries") holding rows that keep user `id` from being
   * deleted: a column naming them whose rule is "restrict". One statement per such table.
   */
  async holding(id: number): Promise<string[]> {
    const asked = this.naming().map(async (table) => {
      const restricting = table.columns.filter((c) => c.onDelete === "restrict");
      if (restricting.length === 0) return undefined;
      const where = restricting.map((c) => `${q(c.column)} = $1`).join(" OR ");
      const { rows } = await this.db.query(`SELECT 1 AS held FROM ${q(table.spec.name)} WHERE ${where} LIMIT 1`, [id]);
      return rows.length > 0 ? table.many : undefined;
    });
    return (await Promise.all(asked)).filter((many): many is string => many !== undefined);
  }

  /** Every row that names user `id`, model by model (by table name), each as its model reads it. */
  async rowsOf(id: number): Promise<ModelRows[]> {
    const out: ModelRows[] = [];
    for (const table of this.naming()) {
      const rows = new SqlTable<Record<string, unknown>>(this.db, table.spec);
      const scope = { where: [table.columns.map((c) => ({ column: c.column, value: id }))] };
      const found: Record<string, unknown>[] = [];
      for (let offset = 0; ; offset += PAGE) {
        const page = await rows.list({ offset, limit: PAGE, countUpTo: 1 }, scope);
        found.push(...page.rows);
        if (page.rows.length < PAGE) break;
      }
      out.push({ model: table.model, table: table.spec, rows: found });
    }
    return out;
  }

  /**
   * In `tx`, before user `id`'s row is deleted: the keys of the stored files (file fields) held by
   * the rows that will go with the user, the rows whose user column says "cascade", the rows of
   * `teams` (the teams going with the user: their team column says "cascade"), and those that
   * cascade from them in turn (a comment of a deleted post), found by following the foreign keys
   * of the known tables (at most MAX_CASCADE_DEPTH deep). The database deletes those rows itself;
   * their files are fw's to delete.
   */
  async filesGoingWith(tx: Queryable, id: number, teams: readonly number[] = []): Promise<string[]> {
    const keys = new Set<string>();
    for (const going of this.cascade(teams)) {
      const files = going.spec.columns.filter((c) => c.fileAt !== undefined);
      if (files.length === 0) continue;
      const selected = files.map((c, i) => `${q(c.column)} ->> 'key' AS k${i}`).join(", ");
      const { rows } = await tx.query(`SELECT ${selected} FROM ${q(going.spec.name)} WHERE ${going.where}`, [id, teams]);
      for (const row of rows) for (let i = 0; i < files.length; i++) if (typeof row[`k${i}`] === "string") keys.add(row[`k${i}`] as string);
    }
    return [...keys];
  }

  /**
   * The sets of rows deleting a user deletes: each a table and the condition its rows meet (on
   * `$1`, the user's key, and `$2`, the keys of the teams going with them).
   */
  private cascade(teams: readonly number[]): { readonly spec: TableSpec; readonly where: string }[] {
    const tables = tablesOf(this.db);
    const sets: { spec: TableSpec; where: string; path: readonly string[] }[] = [];
    const from = (spec: TableSpec, table: string, value: string): string[] =>
      spec.columns.filter((c) => c.references?.table === table && c.references.onDelete === "cascade").map((c) => `${q(c.column)} ${value}`);
    for (const spec of tables) {
      const cascading = [...from(spec, this.usersTable, "= $1"), ...(teams.length > 0 ? from(spec, TEAMS_TABLE, "= ANY($2::bigint[])") : [])];
      // Both parameters named in every statement (PostgreSQL wants a type for each one given).
      if (cascading.length > 0) sets.push({ spec, where: `(${cascading.join(" OR ")}) AND $1::bigint IS NOT NULL AND $2::bigint[] IS NOT NULL`, path: [spec.name] });
    }
    for (let i = 0; i < sets.length; i++) {
      const parent = sets[i] as (typeof sets)[number];
      if (parent.path.length >= MAX_CASCADE_DEPTH) continue;
      const keys = `SELECT ${q(parent.spec.key.column)} FROM ${q(parent.spec.name)} WHERE ${parent.where}`;
      for (const spec of tables) {
        if (parent.path.includes(spec.name)) continue;
        const cascading = from(spec, parent.spec.name, `IN (${keys})`);
        if (cascading.length > 0) sets.push({ spec, where: cascading.join(" OR "), path: [...parent.path, spec.name] });
      }
    }
    return sets;
  }
}
