/**
 * Values read the same from both engines. int8 (the key and owner columns) reads as a number
 * while it is a safe integer (PGlite's rule, given to pg too, whose default is a string);
 * date, timestamp and timestamptz stay the text PostgreSQL sends (a model's date field is a
 * string, and a `Date` would not survive validation).
 */
export const INT8 = 20;
/** date, timestamp, timestamptz. */
export const TEXT_TYPES: readonly number[] = [1082, 1114, 1184];

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * PostgreSQL's text of an int8 (`-?[0-9]+`, no leading zeros) as a number while it is a safe
 * integer, else a bigint. Fifteen digits or fewer are below 2^53, so `Number` reads them
 * exactly with no BigInt made: the keys of every row of a page take that path.
 */
export function parseInt8(text: string): number | bigint {
  if (text.length <= 15 || (text.length === 16 && text.charCodeAt(0) === 45 /* - */)) return Number(text);
  const value = BigInt(text);
  return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
}
