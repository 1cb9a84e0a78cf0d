import { columnType } from "./ddl.js";
import type { ColumnSpec, ColumnType } from "./table.js";

/** A value checked for a column, as a SQL literal cast to the column's type; or why it is not one. */
export type FillValue = { readonly literal: string } | { readonly problem: string };

const INT4 = [-(2n ** 31n), 2n ** 31n - 1n] as const;
const INT8 = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const WHOLE = /^[+-]?\d{1,20}$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,4})?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * The value the rows already there get in a new required column (or the rows holding NULL in a
 * column made required), as typed on the drift page: checked strictly against the column's
 * type, then written as a quoted literal cast to that type (`'7'::bigint`, `'it''s'::varchar(80)`),
 * so nothing typed can change the statement. A time without a zone is UTC. Whether a reference's
 * key names a row is checked against the database by the caller.
 */
export function fillValue(column: ColumnSpec, raw: string): FillValue {
  const problem = checkValue(column, raw);
  if (problem !== undefined) return { problem: `${column.column}: ${problem}` };
  const text = column.type === "timestamptz" && TIMESTAMP.exec(raw)?.[7] === undefined ? `${raw}Z` : raw;
  return { literal: `${quoted(text)}::${columnType(column)}` };
}

/** The shape of input each type takes, for the page's hint: "a whole number", "YYYY-MM-DD". */
export function valueHint(type: ColumnType): string {
  return HINTS[type];
}

const HINTS: Record<ColumnType, string> = {
  text: "text",
  integer: "a whole number",
  bigint: "a whole number",
  "double precision": "a number",
  numeric: "a decimal number",
  boolean: "true or false",
  date: "a date, YYYY-MM-DD",
  timestamptz: "a time, YYYY-MM-DDTHH:MM (UTC unless it ends with Z or ±HH:MM)",
  jsonb: "JSON",
};

function checkValue(column: ColumnSpec, raw: string): string | undefined {
  if (raw.includes("\0")) return "a value cannot hold the NUL character";
  switch (column.type) {
    case "text": {
      const length = [...raw].length;
      return column.maxLength !== undefined && length > column.maxLength ? `${length} characters is longer than the column's ${column.maxLength}` : undefined;
    }
    case "integer":
      return whole(raw, INT4);
    case "bigint":
      return whole(raw, INT8);
    case "double precision":
      return DECIMAL.test(raw) && Number.isFinite(Number(raw)) ? undefined : `${JSON.stringify(raw)} is not a number (write it as 12.5 or 1e3)`;
    case "numeric":
      return DECIMAL.test(raw) ? undefined : `${JSON.stringify(raw)} is not a decimal number (write it as 12.50)`;
    case "boolean":
      return raw === "true" || raw === "false" ? undefined : `${JSON.stringify(raw)} is not true or false`;
    case "date": {
      const match = DATE.exec(raw);
      return match !== null && realDate(match) ? undefined : `${JSON.stringify(raw)} is not a date written YYYY-MM-DD`;
    }
    case "timestamptz": {
      const match = TIMESTAMP.exec(raw);
      const fits = match !== null && realDate(match) && Number(match[4]) < 24 && Number(match[5]) < 60 && Number(match[6] ?? 0) < 60;
      return fits ? undefined : `${JSON.stringify(raw)} is not a time written YYYY-MM-DDTHH:MM (seconds, and a zone Z or ±HH:MM, optional)`;
    }
    case "jsonb":
      try {
        JSON.parse(raw);
        return undefined;
      } catch {
        return `${JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw)} is not JSON`;
      }
  }
}

function whole(raw: string, [min, max]: readonly [bigint, bigint]): string | undefined {
  if (!WHOLE.test(raw)) return `${JSON.stringify(raw)} is not a whole number`;
  const value = BigInt(raw);
  return value < min || value > max ? `${raw} is outside the column's range (${min} to ${max})` : undefined;
}

/** Year, month and day name a day of the calendar (no 31 April). */
function realDate(match: RegExpExecArray): boolean {
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // not Date.UTC, which reads years 0-99 as 1900-1999
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * A string literal that means `text` whatever the server's settings: quotes doubled, and with a
 * backslash an escape string (`E'…'`, backslashes doubled), which does not depend on
 * standard_conforming_strings.
 */
function quoted(text: string): string {
  const single = text.replaceAll("'", "''");
  return text.includes("\\") ? `E'${single.replaceAll("\\", "\\\\")}'` : `'${single}'`;
}
