/**
 * Values read the same from both engines. int8 (the key and owner columns) reads as a number
 * while it is a safe integer (PGlite's rule, given to pg too, whose default is a string);
 * date, timestamp and timestamptz stay the text PostgreSQL sends (a model's date field is a
 * string, and a `Date` would not survive validation).
 */
export const INT8 = 20;
/** date, timestamp, timestamptz. */
export const TEXT_TYPES: readonly number[] = [1082, 1114, 1184];

export function parseInt8(text: string): number | bigint {
  const value = BigInt(text);
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}
