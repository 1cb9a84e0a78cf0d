/**
 * How fw reads a number written as text: a path segment, a query field, a form field (issue 39,
 * item 8). One spelling per number is read, the one JavaScript and JSON write (`String(value)`):
 * `7`, `-2`, `1.5`. A sign `+`, a leading zero (`07`, `-0`), `7.0`, an exponent where none is
 * written (`7e0`), `0x7`, whitespace and empty text read as nothing, so `/posts/07` is a 400 and
 * never post 7: each resource has one address, and what the server reads is what the OpenAPI
 * document's `integer` promises.
 */

/** The largest key an `Id` holds (typia's `uint32`). */
export const UINT32_MAX = 4_294_967_295;

/** Whether `text` is the one spelling of `value` that fw reads (`String(value)`). */
export function isNumberText(text: string, value: number | bigint): boolean {
  return String(value) === text;
}

/**
 * A whole number from `min` to `max` written in decimal digits, a `-` first when negative, no
 * leading zero; undefined for any other text. Shared by every decoder of whole numbers: path
 * parameters (`FromPath.int`), keys in a query or a form, integer form fields, page numbers.
 */
export function readWholeNumber(text: string, min: number, max: number): number | undefined {
  // 17 characters hold every safe integer with its sign; a longer text is no safe integer.
  if (text.length > 17 || !/^-?[0-9]+$/.test(text)) return undefined;
  const value = Number(text);
  return isNumberText(text, value) && value >= min && value <= max ? value : undefined;
}
