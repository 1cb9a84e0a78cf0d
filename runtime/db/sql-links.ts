import { MissingReference } from "../resource/store-errors.js";
import type { Queryable } from "./database.js";
import { quoteIdentifier as q } from "./identifier.js";
import type { LinkSpec, TableSpec } from "./table.js";

/**
 * The list fields of a table model (many-to-many, issue 43: `tags: Id<Tag>[]`), each kept in its
 * join table (`posts_tags (post_id, tag_id)`): read for a whole page of rows in one statement per
 * list field, whatever the page's size, and written in the row's own transaction.
 */

/**
 * Sets each list field of `models` (rows already read, keyed by `key`) to the keys its join table
 * holds for them, in key order: one statement per list field for all of them (`= ANY`), one after
 * another. Answers `answer` once they are set (the models, a page of them, the one row a Show
 * reads). `then`s on the statements, not an async function: its promise, await and the caller's
 * `then` for its answer were three promises where one does (bench/FINDINGS.md 47); whatever fails
 * on the way is still a rejection, never a throw.
 */
export function loadLinks<T>(via: Queryable, table: TableSpec, models: readonly Record<string, unknown>[], answer: T): Promise<T> {
  const links = table.links ?? [];
  if (links.length === 0 || models.length === 0) return Promise.resolve(answer);
  try {
    const keys = keyArray(models.map((model) => model[table.key.field] as number));
    return linksFrom(via, table, models, keys, 0, answer);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The list field `links[at]` of `models` read and set, then the ones after it; `answer` at the end. */
function linksFrom<T>(via: Queryable, table: TableSpec, models: readonly Record<string, unknown>[], keys: string, at: number, answer: T): Promise<T> {
  const links = table.links as readonly LinkSpec[];
  const link = links[at] as LinkSpec;
  return via.query(linksSql(link), [keys]).then(({ rows }) => {
    const byRow = listsByRow(rows);
    for (const model of models) model[link.field] = byRow.get(model[table.key.field] as number) ?? [];
    return at + 1 < links.length ? linksFrom(via, table, models, keys, at + 1, answer) : answer;
  });
}

/**
 * The links read, `f` the row's key and `t` the listed key, as each row's list. They come in key
 * order, so a row's list is one run of them, copied into an array of its length: a list grown by
 * `push` from empty reserves 17 slots at its first key, and a page's lists live while its labels
 * are read (bench/FINDINGS.md 43).
 */
function listsByRow(rows: readonly Record<string, unknown>[]): Map<number, number[]> {
  const byRow = new Map<number, number[]>();
  for (let start = 0; start < rows.length; ) {
    const from = Number((rows[start] as Record<string, unknown>)["f"]);
    let end = start + 1;
    while (end < rows.length && Number((rows[end] as Record<string, unknown>)["f"]) === from) end++;
    const list = new Array<number>(end - start);
    for (let at = start; at < end; at++) list[at - start] = Number((rows[at] as Record<string, unknown>)["t"]);
    byRow.set(from, list);
    start = end;
  }
  return byRow;
}

/** Each list field's reading statement, written once: the same text for every page that loads its links. */
const LINKS_SQL = new WeakMap<LinkSpec, string>();

/** The statement reading a list field's links for some rows (`$1` their keys, an array literal), in key order. */
function linksSql(link: LinkSpec): string {
  let sql = LINKS_SQL.get(link);
  if (sql === undefined) {
    sql = `SELECT ${q(link.from)} AS f, ${q(link.to)} AS t FROM ${q(link.table)} WHERE ${q(link.from)} = ANY($1::bigint[]) ORDER BY ${q(link.from)}, ${q(link.to)}`;
    LINKS_SQL.set(link, sql);
  }
  return sql;
}

/**
 * Writes the row `key`'s lists from `draft` (in the caller's transaction): on update the row's
 * links are replaced (a list left out of the draft is emptied, as a field left out is cleared).
 * A key no row of the listed table has throws `MissingReference` naming the field and the key
 * (the foreign key refuses it; nothing of the write is kept). Answers the lists as written.
 */
export async function writeLinks(tx: Queryable, table: TableSpec, key: number, draft: Readonly<Record<string, unknown>>, replace: boolean): Promise<Record<string, number[]>> {
  const written: Record<string, number[]> = {};
  for (const link of table.links ?? []) {
    const keys = listKeys(table, link, draft[link.field]);
    if (replace) await tx.query(`DELETE FROM ${q(link.table)} WHERE ${q(link.from)} = $1`, [key]);
    if (keys.length > 0) {
      try {
        await tx.query(`INSERT INTO ${q(link.table)} (${q(link.from)}, ${q(link.to)}) SELECT $1, unnest($2::bigint[])`, [key, keyArray(keys)]);
      } catch (error) {
        throw missing(error, table, link) ?? error;
      }
    }
    written[link.field] = keys;
  }
  return written;
}

/** A list's keys as given: absent is the empty list; each a key (a whole number from 1), once, in key order. */
function listKeys(table: TableSpec, link: LinkSpec, value: unknown): number[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new MissingReference(table.name, link.field, value);
  const wrong = value.find((one) => !(typeof one === "number" && Number.isSafeInteger(one) && one > 0));
  // A value no key can be names no row: refused as the foreign key would refuse it, never sent.
  if (wrong !== undefined) throw new MissingReference(table.name, link.field, wrong);
  return [...new Set(value as number[])].sort((a, b) => a - b);
}

/** The foreign key of the listed column refusing a key (23503) as `MissingReference`, naming the key from the error's detail. */
function missing(error: unknown, table: TableSpec, link: LinkSpec): MissingReference | undefined {
  const e = (error ?? {}) as { readonly code?: unknown; readonly detail?: unknown };
  if (e.code !== "23503") return undefined;
  const key = typeof e.detail === "string" ? /\)=\(([^)]*)\)/.exec(e.detail)?.[1] : undefined;
  return new MissingReference(table.name, link.field, key === undefined ? "a key" : Number(key));
}

/** Keys as a PostgreSQL array literal (`{1,2,3}`): the same text on either engine's driver. */
function keyArray(keys: readonly number[]): string {
  return `{${keys.join(",")}}`;
}

/** `key IN (SELECT post_id FROM posts_tags WHERE tag_id = $n)`: the rows whose list holds `value` (`has`), its value pushed onto `params`. */
export function hasSql(table: TableSpec, link: LinkSpec, value: unknown, params: unknown[]): string {
  if (!(typeof value === "number" && Number.isSafeInteger(value))) return "FALSE";
  params.push(value);
  return `${q(table.key.column)} IN (SELECT ${q(link.from)} FROM ${q(link.table)} WHERE ${q(link.to)} = $${params.length})`;
}

