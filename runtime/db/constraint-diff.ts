import { foreignKeyConstraintSql, indexName, indexSql, ownerIndexSql, uniqueConstraintSql, uniqueName } from "./ddl.js";
import { quoteIdentifier as q } from "./identifier.js";
import type { SchemaChange } from "./schema-change.js";
import type { ActualForeignKey, ActualTable, DataProbe } from "./schema-read.js";
import type { ColumnSpec, TableSpec } from "./table.js";

/** A reference column's foreign key as the model wants it. */
type Wanted = NonNullable<ColumnSpec["references"]>;

/** What comparing one table's constraints needs beyond the table. */
export interface ConstraintContext {
  readonly probe: DataProbe;
  /** The tables the database has now, before the drift applies (a table the drift creates is still empty). */
  readonly existing: ReadonlySet<string>;
  /** The table's columns the drift adds: they hold no value yet but the one chosen for every row. */
  readonly added: ReadonlySet<string>;
}

/**
 * A declared table's foreign keys, uniques and reference indexes compared with the model's:
 * `drops` (what the model no longer declares) apply before the table's column changes, `adds`
 * (missing ones, changed rules) after them, so a new column exists before its constraints.
 * Only single-column foreign keys and unique constraints on the model's own columns are ever
 * dropped (fw makes no other kind); a unique index made by hand counts as a unique and is left alone.
 */
export async function constraintChanges(table: TableSpec, actual: ActualTable, context: ConstraintContext): Promise<{ drops: SchemaChange[]; adds: SchemaChange[] }> {
  const drops: SchemaChange[] = [];
  const adds: SchemaChange[] = [];
  const t = table.name;
  for (const column of table.columns) {
    const keys = actual.foreignKeys.filter((fk) => sameList(fk.columns, [column.column]));
    const wanted = column.references;
    if (wanted === undefined) {
      drops.push(...keys.map((fk) => dropForeignKey(t, column.column, fk)));
      continue;
    }
    const kept = keys.find((fk) => satisfies(fk, wanted));
    if (kept !== undefined) drops.push(...keys.filter((fk) => fk !== kept).map((fk) => dropForeignKey(t, column.column, fk)));
    else adds.push(await foreignKeyChange(t, column, wanted, keys, context));
    if (!actual.indexes.some((index) => index.columns[0] === column.column)) adds.push(addIndex(t, column.column));
  }
  for (const columns of table.indexes ?? []) {
    // Any index that starts with these columns serves the same queries (one made by hand too).
    if (!actual.indexes.some((index) => columns.every((c, i) => index.columns[i] === c))) adds.push(addPlainIndex(t, columns));
  }
  const model = new Set(table.columns.map((column) => column.column));
  const wantedUniques = [...table.columns.filter((column) => column.unique === true).map((column) => [column.column]), ...(table.unique ?? [])];
  for (const columns of wantedUniques) {
    if (!actual.uniques.some((unique) => sameSet(unique.columns, columns))) adds.push(await addUnique(table, columns, context));
  }
  for (const unique of actual.uniques) {
    if (!unique.constraint || wantedUniques.some((columns) => sameSet(columns, unique.columns)) || !unique.columns.every((c) => model.has(c))) continue;
    drops.push({
      kind: "drop unique",
      table: t,
      ...(unique.columns.length === 1 ? { column: unique.columns[0] as string } : {}),
      summary: `drops the unique ${unique.name} on ${listed(unique.columns)}, which the model no longer declares`,
      sql: `ALTER TABLE ${q(t)} DROP CONSTRAINT ${q(unique.name)};\n`,
    });
  }
  return { drops, adds };
}

/**
 * The foreign key and index of a reference column of a table the drift creates without them
 * (two new tables pointing at each other: the second is not there yet when the first is made).
 */
export function deferredReference(table: string, column: ColumnSpec & { references: Wanted }): SchemaChange[] {
  return [
    { kind: "add foreign key", table, column: column.column, wanted: referencesText(column.references), summary: `adds the foreign key of ${column.column} to ${column.references.table}`, sql: `ALTER TABLE ${q(table)} ADD ${foreignKeyConstraintSql(table, column)};\n` },
    addIndex(table, column.column),
  ];
}

/** The existing key already does what the model wants: same target, same rule (NO ACTION is RESTRICT checked at the statement's end). */
function satisfies(fk: ActualForeignKey, wanted: Wanted): boolean {
  const rule = wanted.onDelete ?? "restrict";
  const same = fk.onDelete === rule || (rule === "restrict" && fk.onDelete === "no action");
  return fk.target === wanted.table && sameList(fk.targetColumns, [wanted.column]) && same;
}

/** A reference column without the foreign key it wants: added, or the one there dropped and added again with the new target or rule. */
async function foreignKeyChange(table: string, column: ColumnSpec, wanted: Wanted, keys: readonly ActualForeignKey[], context: ConstraintContext): Promise<SchemaChange> {
  const c = column.column;
  const add = `ALTER TABLE ${q(table)} ADD ${foreignKeyConstraintSql(table, { ...column, references: wanted })};\n`;
  const sameTarget = keys.length > 0 && keys.every((fk) => fk.target === wanted.table && sameList(fk.targetColumns, [wanted.column]));
  // Rows already there must name rows of the target, unless only the rule changes or the column is new.
  const orphans = sameTarget || context.added.has(c) ? undefined : await context.probe.orphans(table, c, wanted.table, wanted.column, context.existing.has(wanted.table));
  const refused =
    orphans === undefined || orphans.rows === 0
      ? {}
      : {
          refused:
            `${orphans.rows} ${orphans.rows === 1 ? "row" : "rows"} of ${table} hold a ${c} that no row of ${wanted.table} has (${orphans.examples.join(", ")}${orphans.keys > orphans.examples.length ? ", …" : ""}): ` +
            `delete ${orphans.rows === 1 ? "it" : "them"} or change their ${c} to the key of an existing ${wanted.table} row, then reload this page`,
        };
  if (keys.length === 0) {
    return { kind: "add foreign key", table, column: c, wanted: referencesText(wanted), summary: `adds the foreign key of ${c} to ${wanted.table} (${onDeleteText(wanted)})`, sql: add, ...refused };
  }
  const was = keys.map((fk) => referencesText({ table: fk.target, column: fk.targetColumns.join(", "), onDelete: fk.onDelete })).join("; ");
  return {
    kind: "change foreign key",
    table,
    column: c,
    was,
    wanted: referencesText(wanted),
    summary: sameTarget ? `changes what deleting a ${wanted.table} row does to ${c}: ${onDeleteText(wanted)}` : `points the foreign key of ${c} at ${wanted.table} (${onDeleteText(wanted)})`,
    sql: keys.map((fk) => `ALTER TABLE ${q(table)} DROP CONSTRAINT ${q(fk.name)};\n`).join("") + add,
    ...refused,
  };
}

function dropForeignKey(table: string, column: string, fk: ActualForeignKey): SchemaChange {
  return {
    kind: "drop foreign key",
    table,
    column,
    was: referencesText({ table: fk.target, column: fk.targetColumns.join(", "), onDelete: fk.onDelete }),
    summary: `drops the foreign key ${fk.name} (${column} → ${fk.target}), which the model no longer declares`,
    sql: `ALTER TABLE ${q(table)} DROP CONSTRAINT ${q(fk.name)};\n`,
  };
}

function addIndex(table: string, column: string): SchemaChange {
  const name = indexName(table, column);
  return { kind: "add index", table, column, summary: `adds the index ${name} on the reference ${column} (pages list by it)`, sql: `${ownerIndexSql(table, column)}\n` };
}

/** An index of `TableSpec.indexes` the database lacks (a read scope's: the rows everyone reads, in key order). */
function addPlainIndex(table: string, columns: readonly string[]): SchemaChange {
  const name = indexName(table, columns);
  return { kind: "add index", table, column: columns[0] as string, summary: `adds the index ${name} on ${listed(columns)} (pages list by it)`, sql: `${indexSql(table, columns)}\n` };
}

/** A unique the model declares and the database lacks: refused while rows already share values. */
async function addUnique(table: TableSpec, columns: readonly string[], context: ConstraintContext): Promise<SchemaChange> {
  const t = table.name;
  const change = {
    kind: "add unique" as const,
    table: t,
    ...(columns.length === 1 ? { column: columns[0] as string } : {}),
    summary: `adds the unique ${uniqueName(t, columns)}: no two rows may share ${columns.length === 1 ? "a value of" : "the values of"} ${listed(columns)}`,
    sql: `ALTER TABLE ${q(t)} ADD ${uniqueConstraintSql(t, columns)};\n`,
  };
  const fresh = columns.filter((c) => context.added.has(c));
  if (fresh.length > 0) {
    // A new column holds NULL (never a clash) or the one value chosen for every row: a clash from two rows up.
    const single = columns.length === 1 ? table.columns.find((column) => column.column === columns[0]) : undefined;
    const rows = single !== undefined && !single.nullable && context.existing.has(t) ? await context.probe.rows(t) : 0;
    if (rows < 2) return change;
    const c = single?.column as string;
    return {
      ...change,
      refused: `the ${rows} rows of ${t} would all get the one value chosen for ${c}, which must be unique: make the field optional first (rows get NULL), give each row its own value, then make it required`,
    };
  }
  const duplicates = await context.probe.duplicates(t, columns);
  if (duplicates.values === 0) return change;
  const values = duplicates.values === 1 ? "1 value" : `${duplicates.values} values`;
  const held = columns.length === 1 ? `of ${columns[0]}` : `of (${columns.join(", ")})`;
  return {
    ...change,
    refused: `${values} ${held} ${duplicates.values === 1 ? "is" : "are"} held by more than one row (${duplicates.rows} rows of ${t} in all): change or delete the duplicates, then reload this page`,
  };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value) => b.includes(value));
}

function listed(columns: readonly string[]): string {
  return columns.length === 1 ? (columns[0] as string) : `(${columns.join(", ")})`;
}

function onDeleteText(wanted: Wanted): string {
  return `on delete ${wanted.onDelete ?? "restrict"}`;
}

function referencesText(target: { readonly table: string; readonly column: string; readonly onDelete?: string }): string {
  return `references ${target.table} (${target.column}) on delete ${target.onDelete ?? "restrict"}`;
}
