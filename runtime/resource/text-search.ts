/**
 * Full-text search in memory (issue 43, item 2): what `InMemoryStore.search` answers for a model
 * with no table, close to what PostgreSQL's `websearch_to_tsquery` finds on fw/db: the same
 * syntax (words, `"a phrase"`, `-without`, `this or that`), English stop words ignored, each word
 * matched in any case and, for English, without its common endings (`fences` finds `fence`). It
 * has no dictionary: where PostgreSQL's stemmer knows more (`running` and `ran`), memory finds
 * less. Ranked by where matches are (an earlier searched field counts more) and how many.
 */
import { BadRequest } from "../http/failure.js";
import { escapeHtml } from "../html/render.js";
import { fold } from "./case-fold.js";

/** The text search configurations both engines ship (PostgreSQL's and PGlite's `pg_ts_config`): what a model's search may be in. */
export const SEARCH_LANGUAGES = [
  "simple", "arabic", "armenian", "basque", "catalan", "danish", "dutch", "english", "estonian", "finnish", "french", "german", "greek", "hindi", "hungarian",
  "indonesian", "irish", "italian", "lithuanian", "nepali", "norwegian", "portuguese", "romanian", "russian", "serbian", "spanish", "swedish", "tamil", "turkish", "yiddish",
] as const;

export type SearchLanguage = (typeof SEARCH_LANGUAGES)[number];

/** One searched term: a word, or a phrase (words in a row); `negated` keeps rows without it. */
interface Term {
  readonly words: readonly string[];
  readonly negated: boolean;
}

/** A query: every item holds (AND), an item holding when any of its terms does (`or`). */
export type TextQuery = readonly (readonly Term[])[];

/** PostgreSQL's English stop words (snowball's list, as `english.stop` holds it). */
const STOP = new Set(
  ("i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves " +
    "what which who whom this that these those am is are was were be been being have has had having do does did doing a an the and but if or because as until while " +
    "of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there " +
    "when where why how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now")
    .split(" "),
);

/** The words of a text as search compares them: letters and digits, folded, stop words out, English endings trimmed. */
export function wordsOf(text: string, language: string): string[] {
  const words = fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((word) => !STOP.has(word)).map((word) => (language === "english" ? stem(word) : word));
}

/** A crude English stemmer: the endings a reader drops to find a word (`fences` → `fence`, `painted` → `paint`). */
function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (/(ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  if (word.endsWith("ing") && word.length > 5) return word.slice(0, -3);
  if (word.endsWith("ed") && word.length > 4) return word.slice(0, -2);
  return word;
}

/**
 * Web-search syntax as `websearch_to_tsquery` reads it: words (all must match), `"a phrase"`,
 * `-word` (rows without it), `or` between two terms (either). Nothing in it is an error: unknown
 * punctuation separates words; a query with no word left (stop words alone) matches nothing.
 */
export function parseQuery(text: string, language: string): TextQuery {
  const items: Term[][] = [];
  let joinNext = false;
  const pattern = /(-?)"([^"]*)"?|(\S+)/g;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const plain = match[3];
    if (plain !== undefined && plain.toLowerCase() === "or") {
      joinNext = items.length > 0;
      continue;
    }
    const negated = match[1] === "-" || (plain?.startsWith("-") === true && plain.length > 1);
    const words = wordsOf(match[2] ?? plain?.replace(/^-/, "") ?? "", language);
    if (words.length === 0) continue;
    const term = { words, negated };
    const last = items[items.length - 1];
    if (joinNext && last !== undefined) last.push(term);
    else items.push([term]);
    joinNext = false;
  }
  return items;
}

/** Whether `query` has anything to match (words left once stop words are out). */
export function isEmptyQuery(query: TextQuery): boolean {
  return query.every((item) => item.every((term) => term.negated));
}

/** A row's searched fields as search reads them, most important first. */
type Fields = readonly { readonly name: string; readonly words: readonly string[] }[];

/** The rank of a row for `query`, or undefined when it does not match: each positive term's matches, weighted by field (1, 0.4, 0.2, 0.1). */
export function rankOf(row: unknown, fields: readonly string[], query: TextQuery, language: string): number | undefined {
  if (isEmptyQuery(query)) return undefined;
  const read: Fields = fields.map((name) => ({ name, words: wordsOf(textOf(row, name), language) }));
  let rank = 0;
  for (const item of query) {
    let held = false;
    for (const term of item) {
      const found = read.reduce((sum, field, i) => sum + occurrences(field.words, term.words) * (WEIGHTS[i] ?? 0.1), 0);
      if (term.negated ? found === 0 : found > 0) held = true;
      if (!term.negated) rank += found;
    }
    if (!held) return undefined;
  }
  return rank;
}

const WEIGHTS = [1, 0.4, 0.2, 0.1];

function textOf(row: unknown, field: string): string {
  const value = (row as Record<string, unknown>)[field];
  return typeof value === "string" ? value : "";
}

/** How often `phrase` occurs in `words`, as consecutive words. */
function occurrences(words: readonly string[], phrase: readonly string[]): number {
  let count = 0;
  for (let i = 0; i + phrase.length <= words.length; i++) if (phrase.every((word, j) => words[i + j] === word)) count++;
  return count;
}

/** At most this many words around the first match make a snippet. */
const SNIPPET_WORDS = 35;

/**
 * A searched field's snippet for `query`, as HTML: up to 35 words of its text from a little before
 * the first match, escaped, each matched word in `<mark>`, "…" where text was left out;
 * undefined when the field holds no match.
 */
export function snippetOf(text: string, query: TextQuery, language: string): string | undefined {
  const wanted = new Set(query.flatMap((item) => item.flatMap((term) => (term.negated ? [] : term.words))));
  const pieces = text.split(/([\p{L}\p{N}]+)/u);
  const marked = pieces.map((piece, i) => i % 2 === 1 && wanted.has(wordsOf(piece, language)[0] ?? "\u0000"));
  const first = marked.indexOf(true);
  if (first === -1) return undefined;
  const wordIndexes = pieces.flatMap((_, i) => (i % 2 === 1 ? [i] : []));
  const at = wordIndexes.indexOf(first);
  const from = wordIndexes[Math.max(0, at - 5)] ?? 0;
  const to = wordIndexes[Math.min(wordIndexes.length - 1, Math.max(0, at - 5) + SNIPPET_WORDS - 1)] ?? pieces.length - 1;
  let html = from > 1 ? "… " : "";
  for (let i = from; i <= to; i++) html += marked[i] ? `<mark>${escapeHtml(pieces[i] as string)}</mark>` : escapeHtml(pieces[i] as string);
  return to < pieces.length - 2 ? `${html.trimEnd()} …` : html;
}

/**
 * A database's snippet (`ts_headline` with `START` and `STOP` around each match) as HTML: the
 * text escaped, each marked stretch in `<mark>` (a mark left open is closed at the end).
 */
export function markedHtml(text: string): string {
  let html = "";
  let open = false;
  // PostgreSQL's headline leaves a space where it dropped a tag: runs of them read as one.
  for (const part of text.replace(/\s+/g, " ").trim().split(/([\uE000\uE001])/)) {
    if (part === MARK_START) {
      if (!open) html += "<mark>";
      open = true;
    } else if (part === MARK_STOP) {
      if (open) html += "</mark>";
      open = false;
    } else html += escapeHtml(part);
  }
  return open ? `${html}</mark>` : html;
}

/** What a database's snippet puts around a match (private-use characters no text of a form holds in practice). */
export const MARK_START = "\uE000";
export const MARK_STOP = "\uE001";

/**
 * How many of the matching rows a search ranks, the newest (highest keys) first: ranking reads
 * each candidate's words, so a word in every row of a big table would cost a read of all of
 * them; past this many, the older matches are counted but not ranked (`SearchPage.rankUpTo`).
 * Finding them costs this many over the word's share of the rows, walking the key's index
 * backwards (a word in a tenth of a million posts: 100,000 rows read for 10,000, ~45 ms on
 * PostgreSQL, where 2,000 read 20,000; bench/FINDINGS.md 30): 40 pages of 50 ranked.
 */
export const MAX_RANKED = 2_000;

/** The longest text a search takes (characters); longer is a 400 saying so. */
export const MAX_SEARCH_TEXT = 1000;

/**
 * The text a search sends: a NUL (which no database text can hold) read as a space; longer than
 * `MAX_SEARCH_TEXT` is a 400 (BadRequest) saying so, never a query.
 */
export function searchText(text: string): string {
  if (text.length > MAX_SEARCH_TEXT) throw new BadRequest(`A search takes at most ${MAX_SEARCH_TEXT} characters; this one has ${text.length}.`);
  return text.replaceAll("\u0000", " ");
}

/** Throws naming the fix when a model declares no searchable fields. */
export function searchFieldsOf(model: string, search: { readonly fields: readonly string[]; readonly language: string } | undefined): { readonly fields: readonly string[]; readonly language: string } {
  if (search === undefined || search.fields.length === 0) {
    throw new Error(`${model}: search needs the model's searchable fields: declare them on its companion, derives<${model}>(…, { search: ["title", "body"] }).`);
  }
  return search;
}
