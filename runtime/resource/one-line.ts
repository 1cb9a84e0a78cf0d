import { escapeHtml } from "../html/render.js";

/** The most characters an index cell and a page heading (or a row's label) show of a text (then "…"). */
export const CELL_LENGTH = 80;
export const HEADING_LENGTH = 120;

/** A text as one line of at most `limit` characters: its first line, cut with "…" when longer (the index's cells). */
export function oneLine(text: string, limit: number): string {
  const line = shownLine(text, limit);
  return line.cut ? `${line.text}…` : line.text;
}

/**
 * `oneLine` as HTML text: the shown part escaped, then the "…". The same text as
 * `escapeHtml(oneLine(text, limit))`, but the escaping reads text without the "…", which is
 * the one character beyond Latin-1 on most pages: escaped with it, a cut text's pieces were all
 * made two bytes a character (an Index of 50 rows writes 50 cut bodies).
 */
export function oneLineHtml(text: string, limit: number): string {
  const line = shownLine(text, limit);
  return line.cut ? `${escapeHtml(line.text)}…` : escapeHtml(line.text);
}

/** The part of `text` one line shows, and whether a "…" follows it. */
function shownLine(text: string, limit: number): { readonly text: string; readonly cut: boolean } {
  const start = text.trimStart();
  const breakAt = start.search(/[\r\n]/);
  const first = breakAt === -1 ? start : start.slice(0, breakAt);
  const more = breakAt !== -1 && start.slice(breakAt).trim() !== "";
  // Walk at most `limit` code points (a surrogate pair is one), never the whole text: an Index
  // of 50 rows calls this for every cell, and a body can be 10,000 characters.
  let end = 0;
  for (let points = 0; end < first.length && points < limit; points++) {
    const unit = first.charCodeAt(end);
    end += unit >= 0xd800 && unit <= 0xdbff && end + 1 < first.length ? 2 : 1;
  }
  return more || end < first.length ? { text: first.slice(0, end).trimEnd(), cut: true } : { text: first, cut: false };
}
