/**
 * The one case folding `search` uses on every store: upper-case letters of Latin, Greek and
 * Cyrillic (U+0041–U+052F) to their lower case, and a final sigma to σ. It is a table rather
 * than `toLowerCase()` or SQL's `lower()` because those depend on the database's locale (under
 * "C", PostgreSQL lowers A–Z alone), and the in-memory store must agree with both engines
 * whatever their locale: a database store sends the table with the query (`translate(column,
 * $from, $to)`, character by character as `fold` does).
 */

const RANGES: readonly (readonly [number, number])[] = [
  [0x41, 0x5a],
  [0xc0, 0x24f],
  [0x370, 0x3ff],
  [0x400, 0x52f],
];

function table(): { from: string; to: string } {
  let from = "";
  let to = "";
  for (const [first, last] of RANGES) {
    for (let code = first; code <= last; code++) {
      const upper = String.fromCharCode(code);
      const lower = upper.toLowerCase();
      if (lower !== upper && lower.length === 1) {
        from += upper;
        to += lower;
      }
    }
  }
  // ς and σ are one letter: a search typed with σ finds a word that ends the text.
  return { from: from + "ς", to: to + "σ" };
}

/** The characters folded (`from`) and what each becomes (`to`, at the same position): one UTF-16 unit each. */
export const CASE_FOLD: { readonly from: string; readonly to: string } = table();

const MAP = new Map([...CASE_FOLD.from].map((c, i) => [c, CASE_FOLD.to[i] as string]));

/** `text` folded: each character of `CASE_FOLD.from` replaced by its partner, the rest kept. */
export function fold(text: string): string {
  let out = "";
  for (const c of text) out += MAP.get(c) ?? c;
  return out;
}
