import { escapeHtml } from "../html/render.js";

/** The most characters an index cell and a page heading (or a row's label) show of a text (then "…"). */
export const CELL_LENGTH = 80;
export const HEADING_LENGTH = 120;

/** A text as one line of at most `limit` characters: its first line, cut with "…" when longer (the index's cells). */
export function oneLine(text: string, limit: number): string {
  const start = text.trimStart();
  const end = shownEnd(start, limit);
  return end < 0 ? `${start.slice(0, ~end).trimEnd()}…` : start.slice(0, end);
}

/**
 * `oneLine` as HTML text: the shown part escaped, then the "…". The same text as
 * `escapeHtml(oneLine(text, limit))`, but the escaping reads text without the "…", which is
 * the one character beyond Latin-1 on most pages: escaped with it, a cut text's pieces were all
 * made two bytes a character (an Index of 50 rows writes 50 cut bodies).
 */
export function oneLineHtml(text: string, limit: number): string {
  const start = text.trimStart();
  const end = shownEnd(start, limit);
  return end < 0 ? `${escapeHtml(start.slice(0, ~end).trimEnd())}…` : escapeHtml(start.slice(0, end));
}

/** A line break: where a text's first line ends. */
const BREAK = /[\r\n]/;
/** Any text after the first line (a global regular expression, read from its `lastIndex`). */
const TEXT_AFTER = /\S/g;

/**
 * Where the part of `start` (a text without leading space) one line shows ends: its first line's
 * end when it is shown whole, else `~end` (negative) when a "…" follows the part shown. A number,
 * not an object: an Index of 50 rows calls this for every text cell (bench/FINDINGS.md 43).
 */
function shownEnd(start: string, limit: number): number {
  const breakAt = start.search(BREAK);
  const lineEnd = breakAt === -1 ? start.length : breakAt;
  let more = false;
  if (breakAt !== -1) {
    TEXT_AFTER.lastIndex = breakAt;
    more = TEXT_AFTER.test(start);
  }
  // Walk at most `limit` code points (a surrogate pair is one), never the whole text: an Index
  // of 50 rows calls this for every cell, and a body can be 10,000 characters.
  let end = 0;
  for (let points = 0; end < lineEnd && points < limit; points++) {
    const unit = start.charCodeAt(end);
    end += unit >= 0xd800 && unit <= 0xdbff && end + 1 < lineEnd ? 2 : 1;
  }
  return more || end < lineEnd ? ~end : lineEnd;
}
