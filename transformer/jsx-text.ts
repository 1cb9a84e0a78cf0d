import type * as ts from "typescript";

/**
 * What JSX text and attribute strings mean, computed as TypeScript's JSX transform computes them
 * (its line trimming and character references), and escaped as fw's renderer escapes text: the
 * pre-renderer (jsx-templates.ts) must write the very bytes the runtime would. spec/transformer
 * checks both against TypeScript and the renderer.
 */

/**
 * Named character references this module decodes: a subset of the table TypeScript's JSX
 * transform uses (the test checks each against it). A name outside it leaves its element to the
 * runtime, since TypeScript may or may not know it.
 */
const NAMED: ReadonlyMap<string, number> = new Map([
  ["quot", 34], ["amp", 38], ["apos", 39], ["lt", 60], ["gt", 62], ["nbsp", 160], ["iexcl", 161],
  ["cent", 162], ["pound", 163], ["yen", 165], ["sect", 167], ["copy", 169], ["laquo", 171],
  ["reg", 174], ["deg", 176], ["plusmn", 177], ["para", 182], ["middot", 183], ["raquo", 187],
  ["iquest", 191], ["times", 215], ["divide", 247], ["ndash", 8211], ["mdash", 8212],
  ["lsquo", 8216], ["rsquo", 8217], ["sbquo", 8218], ["ldquo", 8220], ["rdquo", 8221],
  ["bdquo", 8222], ["dagger", 8224], ["bull", 8226], ["hellip", 8230], ["prime", 8242],
  ["lsaquo", 8249], ["rsaquo", 8250], ["euro", 8364], ["trade", 8482], ["larr", 8592],
  ["uarr", 8593], ["rarr", 8594], ["darr", 8595], ["harr", 8596], ["minus", 8722],
  ["le", 8804], ["ge", 8805], ["ne", 8800], ["hearts", 9829],
]);

// TypeScript's own pattern for a character reference in JSX.
const REFERENCE = /&((#((\d+)|x([\da-fA-F]+)))|(\w+));/g;

/**
 * JSX text with its character references decoded; undefined when one cannot be decoded here
 * (a name outside NAMED, a code point past U+10FFFF).
 */
export function decodeJsxEntities(text: string): string | undefined {
  let unknown = false;
  const decoded = text.replace(REFERENCE, (match, _all, _number, _digits, decimal?: string, hex?: string, word?: string) => {
    const code = decimal !== undefined ? parseInt(decimal, 10) : hex !== undefined ? parseInt(hex, 16) : NAMED.get(word as string);
    if (code === undefined || code > 0x10ffff) {
      unknown = true;
      return match;
    }
    return String.fromCodePoint(code);
  });
  return unknown ? undefined : decoded;
}

/**
 * The string TypeScript passes for one piece of JSX text: each line trimmed (the first line's
 * start and the last line's end kept), blank lines dropped, lines joined by one space,
 * character references decoded. Undefined when nothing is passed (blank text across lines);
 * null when a reference cannot be decoded here.
 */
export function jsxTextValue(text: string, tsApi: typeof ts): string | undefined | null {
  const lines: string[] = [];
  let first = 0;
  let last = -1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (tsApi.isLineBreak(code)) {
      if (first !== -1 && last !== -1) lines.push(text.slice(first, last + 1));
      first = -1;
    } else if (!tsApi.isWhiteSpaceSingleLine(code)) {
      last = i;
      if (first === -1) first = i;
    }
  }
  if (first !== -1) lines.push(text.slice(first));
  if (lines.length === 0) return undefined;
  const decoded = lines.map(decodeJsxEntities);
  return decoded.includes(undefined) ? null : decoded.join(" ");
}

/** Escapes `& < > " '` as fw's renderer does (runtime/html/render.ts `escapeHtml`). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] as string);
}

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
