import { constraintChanges, deferredReference } from "./constraint-diff.js";
import type { Queryable } from "./database.js";
import { columnType, createTableSql, indexName, indexSql, LINK_TABLE_COMMENT, linkComment, linkTableSql, MODEL_TABLE_COMMENT, searchColumnSql, searchCommentSql, searchIndexSql, searchSignature, searchStatisticsSql } from "./ddl.js";
import { fillValue } from "./fill-value.js";
import { quoteIdentifier as q } from "./identifier.js";
import { driftOf, type FillQuestion, type SchemaChange, type SchemaDrift } from "./schema-change.js";
import { DataProbe, readSchema, type ActualColumn, type ActualTable } from "./schema-read.js";
import { USERS_TABLE, usersTableSql } from "./sql-users.js";
import { TEAMS_TABLE, teamsTableSql } from "./sql-teams.js";
import { checkTable, SEARCH_COLUMN, VERSION_COLUMN, type ColumnSpec, type ColumnType, type TableSpec } from "./table.js";

export { driftOf, migrationName, type ChangeKind, type FillQuestion, type SchemaChange, type SchemaDrift } from "./schema-change.js";

/** The value typed for a question (`FillQuestion.name`), if any: the drift page's posted form. */
export type Answers = (name: string) => string | undefined;

/** The SQL type `format_type` prints for each column type fw/db declares. */
const FORMAT_TYPE: Record<ColumnType, string> = {
  text: "text",
  integer: "integer",
  bigint: "bigint",
  "double precision": "double precision",
  numeric: "numeric",
  boolean: "boolean",
  date: "date",
  timestamptz: "timestamp with time zone",
  jsonb: "jsonb",
};

/** Changes of type that keep every value as it is (`from` → the `to`s listed). */
const WIDENINGS: Record<string, readonly string[]> = {
  integer: ["bigint", "numeric", "double precision"],
  bigint: ["numeric"],
  date: ["timestamp with time zone"],
};

/**
 * Compares the tables the models derive with the database's schema: missing tables (the users
 * table too, when an owned model references it), missing and extra columns, changed types,
 * nullability and maximum lengths, foreign keys (target and on-delete rule), uniques, the
 * indexes of references, and tables fw made for a model no model declares any more. Reads the
 * rows only to tell whether a drop or a narrowing would lose data, whether rows would break a
 * new foreign key or unique, and how many rows a new required column needs a value for: that
 * value is never made up; `answers` gives the one the user chose (the drift page's form).
 */
export async function schemaDrift(db: Queryable, tables: readonly TableSpec[], answers?: Answers): Promise<SchemaDrift> {
  for (const table of tables) checkTable(table);
  const actual = await readSchema(db);
  const context: DiffContext = { probe: new DataProbe(db), existing: new Set(actual.keys()), answers };
  const changes: SchemaChange[] = [];
  if (!actual.has(USERS_TABLE) && tables.some((t) => t.columns.some((c) => c.references?.table === USERS_TABLE))) {
    changes.push({ kind: "create table", table: USERS_TABLE, summary: `creates the users table ${USERS_TABLE} (an owned model references it)`, sql: usersTableSql() });
  }
  if (!actual.has(TEAMS_TABLE) && tables.some((t) => t.columns.some((c) => c.references?.table === TEAMS_TABLE))) {
    changes.push({ kind: "create table", table: TEAMS_TABLE, summary: `creates fw's teams table ${TEAMS_TABLE} (a team model references it)`, sql: teamsTableSql() });
  }
  changes.push(...createTables(tables.filter((table) => !actual.has(table.name)), new Set([...actual.keys(), USERS_TABLE, TEAMS_TABLE])));
  for (const table of tables) {
    const found = actual.get(table.name);
    if (found !== undefined) changes.push(...(await tableChanges(table, found, context)));
  }
  changes.push(...(await linkChanges(tables, actual, context.probe)));
  const declared = new Set(tables.flatMap((table) => [table.name, ...(table.links ?? []).map((link) => link.table)]));
  for (const orphan of [...actual.values()].filter((table) => !declared.has(table.name) && isModelTable(table))) {
    changes.push(await dropTable(orphan, context.probe));
  }
  return driftOf(changes);
}

interface DiffContext {
  readonly probe: DataProbe;
  /** The tables the database has now. */
  readonly existing: ReadonlySet<string>;
  readonly answers: Answers | undefined;
}

/**
 * The missing tables, each after the tables it references (a foreign key needs its target).
 * Tables that point at each other cannot all come after the other: the one made first gets its
 * reference to the later one as a foreign key added once both exist.
 */
function createTables(missing: readonly TableSpec[], present: ReadonlySet<string>): SchemaChange[] {
  const made = new Set(present);
  const creates: SchemaChange[] = [];
  const deferred: SchemaChange[] = [];
  const left = [...missing];
  while (left.length > 0) {
    const ready = (table: TableSpec): boolean => table.columns.every((c) => c.references === undefined || c.references.table === table.name || made.has(c.references.table));
    const index = Math.max(0, left.findIndex(ready));
    const table = left.splice(index, 1)[0] as TableSpec;
    const later = table.columns.filter((c): c is ColumnSpec & { references: NonNullable<ColumnSpec["references"]> } => c.references !== undefined && c.references.table !== table.name && !made.has(c.references.table));
    const stripped = new Set(later.map((c) => c.column));
    const now = later.length === 0 ? table : { ...table, columns: table.columns.map((c) => (stripped.has(c.column) ? withoutReference(c) : c)) };
    creates.push({ kind: "create table", table: table.name, summary: `creates the table ${table.name}`, sql: createTableSql(now) });
    for (const column of later) deferred.push(...deferredReference(table.name, column));
    made.add(table.name);
  }
  return [...creates, ...deferred];
}

function withoutReference(column: ColumnSpec): ColumnSpec {
  const { references: _dropped, ...rest } = column;
  return rest;
}

/**
 * A table fw made for a model (`createTableSql` marks it with its comment) that no model
 * declares now. A table without the mark (made by a hand-written migration, or by fw before it
 * marked its tables), the users tables, and a table another one references are never dropped:
 * fw cannot tell whether something still needs them.
 */
function isModelTable(table: ActualTable): boolean {
  const fws = table.comment === MODEL_TABLE_COMMENT || table.comment?.startsWith(`${LINK_TABLE_COMMENT} `) === true;
  return fws && !table.referenced && table.name !== USERS_TABLE;
}

/**
 * The join tables of the models' list fields (many-to-many, issue 43), after every table they
 * point at: a missing one is created; one that holds other columns, or whose foreign keys point
 * elsewhere (the list now names another model), is made again, its links lost (said so when it
 * has rows: they named rows of the other model).
 */
async function linkChanges(tables: readonly TableSpec[], actual: ReadonlyMap<string, ActualTable>, probe: DataProbe): Promise<SchemaChange[]> {
  const changes: SchemaChange[] = [];
  for (const table of tables) {
    for (const link of table.links ?? []) {
      const found = actual.get(link.table);
      const create = { kind: "create table" as const, table: link.table, sql: linkTableSql(table, link) };
      if (found === undefined) {
        changes.push({ ...create, summary: `creates the join table ${link.table} of ${table.name}.${link.field} (${link.from}, ${link.to})` });
        continue;
      }
      if (linkMatches(table, link, found)) {
        // A join table made before fw derived its index (30ec89a) gets it: `?tags=3` reads a tag's rows from it alone.
        const columns = [link.to, link.from];
        const indexed = found.indexes.some((index) => index.columns[0] === columns[0] && index.columns[1] === columns[1]);
        if (!indexed) changes.push({ kind: "add index", table: link.table, column: link.to, summary: `adds the index ${indexName(link.table, columns)} on ${link.to}, ${link.from} (a list filtered by ${link.field} reads its rows from it alone)`, sql: `${indexSql(link.table, columns)}\n` });
        continue;
      }
      const rows = await probe.hasRows(link.table);
      changes.push({
        ...create,
        summary: `makes the join table ${link.table} of ${table.name}.${link.field} again: it does not hold (${link.from}, ${link.to}) pointing at ${table.name} and ${link.target.table}`,
        sql: `DROP TABLE ${q(link.table)};\n${create.sql}`,
        ...(rows ? { destructive: `deletes the links ${link.table} holds` } : {}),
      });
    }
  }
  return changes;
}

/** The join table as it is has the two columns, each a cascading foreign key to the right table, and the comment fw gives it. */
function linkMatches(table: TableSpec, link: NonNullable<TableSpec["links"]>[number], found: ActualTable): boolean {
  const points = (column: string, target: string): boolean => found.foreignKeys.some((fk) => fk.columns.length === 1 && fk.columns[0] === column && fk.target === target && fk.onDelete === "cascade");
  return found.columns.size === 2 && found.columns.has(link.from) && found.columns.has(link.to) && points(link.from, table.name) && points(link.to, link.target.table) && found.comment === linkComment(table.name, link);
}

async function dropTable(table: ActualTable, probe: DataProbe): Promise<SchemaChange> {
  const rows = await probe.hasRows(table.name);
  return {
    kind: "drop table",
    table: table.name,
    summary: `drops the table ${table.name}, which no model declares`,
    sql: `DROP TABLE ${q(table.name)};\n`,
    ...(rows ? { destructive: `deletes the table's rows` } : {}),
  };
}

/**
 * A declared table that exists: its columns compared one by one, then its foreign keys, uniques
 * and indexes (the ones the model no longer declares dropped first, the new ones added last).
 */
async function tableChanges(table: TableSpec, actual: ActualTable, context: DiffContext): Promise<SchemaChange[]> {
  const changes: SchemaChange[] = [];
  const t = table.name;
  const probe = context.probe;
  if (!actual.columns.has(table.key.column)) {
    const sql = `ALTER TABLE ${q(t)} ADD COLUMN ${q(table.key.column)} bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY;\n`;
    changes.push({ kind: "add column", table: t, column: table.key.column, wanted: "bigint identity", summary: `adds the key column ${table.key.column}`, sql });
  }
  const added = new Set<string>();
  for (const column of table.columns) {
    const found = actual.columns.get(column.column);
    if (found === undefined) {
      changes.push(await addColumn(t, column, context));
      added.add(column.column);
    } else changes.push(...(await columnChanges(t, column, found, context)));
  }
  if (!actual.columns.has(VERSION_COLUMN)) {
    const sql = `ALTER TABLE ${q(t)} ADD COLUMN ${q(VERSION_COLUMN)} integer NOT NULL DEFAULT 1;\n`;
    changes.push({ kind: "add column", table: t, column: VERSION_COLUMN, wanted: "integer", summary: `adds fw's version column ${VERSION_COLUMN}`, sql });
  }
  changes.push(...searchChanges(table, actual));
  const wanted = new Set([table.key.column, VERSION_COLUMN, SEARCH_COLUMN, ...table.columns.map((column) => column.column)]);
  for (const extra of [...actual.columns.values()].filter((column) => !wanted.has(column.name))) {
    const values = await probe.hasValues(t, extra.name);
    changes.push({
      kind: "drop column",
      table: t,
      column: extra.name,
      was: extra.type,
      summary: `drops the column ${extra.name}, which no field of the model stores`,
      sql: `ALTER TABLE ${q(t)} DROP COLUMN ${q(extra.name)};\n`,
      ...(values ? { destructive: `deletes the values rows hold in ${extra.name}` } : {}),
    });
  }
  const constraints = await constraintChanges(table, actual, { probe, existing: context.existing, added });
  return [...constraints.drops, ...changes, ...constraints.adds];
}

/**
 * fw's search column (issue 43): added with its GIN index when the model declares searchable
 * fields and the table lacks it, made again when it reads other fields or another language
 * (its comment says which), dropped (its index with it) when the model declares none.
 */
function searchChanges(table: TableSpec, actual: ActualTable): SchemaChange[] {
  const t = table.name;
  const found = actual.columns.get(SEARCH_COLUMN);
  const search = table.search;
  const drop = { kind: "drop column" as const, table: t, column: SEARCH_COLUMN, was: "tsvector", sql: `ALTER TABLE ${q(t)} DROP COLUMN ${q(SEARCH_COLUMN)};\n` };
  if (search === undefined) return found === undefined ? [] : [{ ...drop, summary: `drops fw's search column ${SEARCH_COLUMN}: the model declares no searchable fields` }];
  const add = {
    kind: "add column" as const,
    table: t,
    column: SEARCH_COLUMN,
    wanted: "tsvector",
    summary: `adds fw's search column ${SEARCH_COLUMN} (the words of ${search.columns.join(", ")}, in ${search.language}) and its GIN index`,
    sql: `ALTER TABLE ${q(t)} ADD COLUMN ${searchColumnSql(search)};\n${searchCommentSql(t, search)}\n${searchStatisticsSql(t)}\n${searchIndexSql(t)}\n`,
  };
  if (found === undefined) return [add];
  if (found.comment !== searchSignature(search)) return [{ ...drop, summary: `drops fw's search column ${SEARCH_COLUMN} to make it again: the model searches other fields now` }, add];
  if (!actual.indexes.some((index) => index.columns[0] === SEARCH_COLUMN)) {
    return [{ kind: "add index", table: t, column: SEARCH_COLUMN, summary: `adds the GIN index of ${SEARCH_COLUMN} (searches find rows by it)`, sql: `${searchIndexSql(t)}\n` }];
  }
  return [];
}

/**
 * A new column, alone: its foreign key, unique and index are changes of their own, after it. A
 * required one on a table with rows needs the value those rows get, which only the user can
 * choose (an empty text or a 0 can break the model: a union of words, a reference); without it
 * the change is refused, and its SQL stops a migration until the value is written in.
 */
async function addColumn(table: string, column: ColumnSpec, context: DiffContext): Promise<SchemaChange> {
  const add = `ALTER TABLE ${q(table)} ADD COLUMN ${q(column.column)} ${columnType(column)}${column.nullable ? "" : " NOT NULL"}`;
  const change = { kind: "add column" as const, table, column: column.column, wanted: described(column) };
  const rows = column.nullable ? 0 : await context.probe.rows(table);
  if (rows === 0) return { ...change, summary: `adds the column ${column.column} (${described(column)})`, sql: `${add};\n` };
  const dropDefault = `ALTER TABLE ${q(table)} ALTER COLUMN ${q(column.column)} DROP DEFAULT;\n`;
  const question = await ask(table, column, rows, context, {
    stop: `the value existing rows of ${table} get in ${column.column}`,
    statements: (value) => `${add} DEFAULT ${value};\n${dropDefault}`,
  });
  return { ...change, summary: `adds the column ${column.column} (${described(column)}); the rows already there get the value you choose`, ...question };
}

/** The SQL a value is written into, and how the statement that stops the migration names it. */
interface Fill {
  /** "the value existing rows of posts get in subtitle" */
  readonly stop: string;
  readonly statements: (value: string) => string;
}

/** Where a value goes in the template: NULL, which a NOT NULL column refuses, so a half-edited migration still fails. */
const PLACEHOLDER = "NULL /* fw: the value */";

/**
 * The question for a value rows get, with the answer when there is one: checked against the
 * column's type (and, for a reference, against the target's rows), written as a quoted literal.
 * Unanswered or wrong, the change is refused and keeps its template SQL.
 */
async function ask(table: string, column: ColumnSpec, rows: number, context: DiffContext, fill: Fill): Promise<Pick<SchemaChange, "sql" | "refused" | "asks">> {
  const name = `fill.${table}.${column.column}`;
  const template =
    `DO $$ BEGIN RAISE EXCEPTION 'fw: choose ${fill.stop}: edit this migration (write the value in place of the NULL below, then delete this statement)'; END $$;\n` +
    fill.statements(PLACEHOLDER);
  const posted = context.answers?.(name);
  const given = posted === undefined || column.type === "text" ? posted : posted.trim();
  const asks: FillQuestion = { name, column, rows, template, ...(given === undefined || given === "" ? {} : { given }) };
  const refused = (why: string): Pick<SchemaChange, "sql" | "refused" | "asks"> => ({ sql: template, refused: why, asks });
  const target = column.references;
  if (target !== undefined && !context.existing.has(target.table)) {
    return refused(`${column.column} must name a row of ${target.table}, a table this change creates, so it has none yet: make the field optional for now (existing rows get NULL), apply, then make it required`);
  }
  if (asks.given === undefined) return refused(`choose ${fill.stop} (${rows} ${rows === 1 ? "row" : "rows"})`);
  const value = fillValue(column, asks.given);
  if ("problem" in value) return refused(value.problem);
  if (target !== undefined && !(await context.probe.exists(target.table, target.column, asks.given))) {
    return refused(`${column.column}: there is no row of ${target.table} with the key ${asks.given}; give the key of an existing one`);
  }
  return { sql: fill.statements(value.literal), asks };
}

/** A column both sides have: its type (maximum length included) and its nullability. */
async function columnChanges(table: string, column: ColumnSpec, actual: ActualColumn, context: DiffContext): Promise<SchemaChange[]> {
  const changes: SchemaChange[] = [];
  const probe = context.probe;
  const type = columnType(column);
  const wantedType = column.maxLength === undefined ? FORMAT_TYPE[column.type] : `character varying(${column.maxLength})`;
  const c = column.column;
  if (actual.type !== wantedType) {
    const narrowing = !widens(actual.type, wantedType);
    const values = narrowing && (await probe.hasValues(table, c));
    changes.push({
      kind: "change type",
      table,
      column: c,
      was: actual.type,
      wanted: wantedType,
      summary: `changes the type of ${c} from ${actual.type} to ${wantedType}`,
      sql: `ALTER TABLE ${q(table)} ALTER COLUMN ${q(c)} TYPE ${type}${textual(actual.type) && textual(wantedType) ? "" : ` USING ${q(c)}::${type}`};\n`,
      ...(values ? { destructive: `narrows ${actual.type} to ${wantedType}: values rows hold may be cut, or refused` } : {}),
    });
  }
  if (actual.nullable && !column.nullable) {
    const setNotNull = `ALTER TABLE ${q(table)} ALTER COLUMN ${q(c)} SET NOT NULL;\n`;
    const change = { kind: "set not null" as const, table, column: c, was: "NULL allowed", wanted: "NOT NULL" };
    const nulls = await probe.nulls(table, c);
    if (nulls === 0) changes.push({ ...change, summary: `makes ${c} required (NOT NULL)`, sql: setNotNull });
    else {
      const question = await ask(table, column, nulls, context, {
        stop: `the value the rows of ${table} holding NULL in ${c} get`,
        statements: (value) => `UPDATE ${q(table)} SET ${q(c)} = ${value} WHERE ${q(c)} IS NULL;\n${setNotNull}`,
      });
      changes.push({ ...change, summary: `makes ${c} required (NOT NULL); the rows holding NULL get the value you choose`, ...question });
    }
  }
  if (!actual.nullable && column.nullable) {
    changes.push({
      kind: "drop not null",
      table,
      column: c,
      was: "NOT NULL",
      wanted: "NULL allowed",
      summary: `makes ${c} optional (NULL allowed)`,
      sql: `ALTER TABLE ${q(table)} ALTER COLUMN ${q(c)} DROP NOT NULL;\n`,
    });
  }
  return changes;
}

/**
 * Text to text (a length changed): no USING, so PostgreSQL's assignment cast refuses a value
 * too long for the new length instead of cutting it, as an explicit cast would.
 */
function textual(type: string): boolean {
  return type === "text" || type.startsWith("character varying");
}

/** True when every value of type `from` is kept as it is in type `to`. */
function widens(from: string, to: string): boolean {
  if (to === "text") return true;
  const length = (type: string): number | undefined => {
    const match = /^character varying\((\d+)\)$/.exec(type);
    return match === null ? undefined : Number(match[1]);
  };
  const [a, b] = [length(from), length(to)];
  if (a !== undefined && b !== undefined) return b >= a;
  return WIDENINGS[from]?.includes(to) ?? false;
}

/** `character varying(80), NOT NULL`, as the page shows a column. */
function described(column: ColumnSpec): string {
  const type = column.maxLength === undefined ? FORMAT_TYPE[column.type] : `character varying(${column.maxLength})`;
  return `${type}, ${column.nullable ? "NULL allowed" : "NOT NULL"}${column.unique === true ? ", UNIQUE" : ""}`;
}
