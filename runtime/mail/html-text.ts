/**
 * What a mail's HTML part needs beside rendering: app paths made absolute on the public origin,
 * and the plain-text part derived from it. Both read the HTML fw rendered (attributes
 * double-quoted and escaped), templates the build pre-rendered included, so they work on the
 * markup rather than on the JSX tree.
 */

/** One tag (its name, and what follows the name) or a run of text. */
const TOKEN = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>|([^<]+)|</g;
/** An `href` or `src` attribute whose value is an app path: one "/" (two would be another host). */
const APP_PATH_ATTR = /(\s(?:href|src)=")(\/(?!\/)[^"]*)"/g;

/** `html` with every `href="/…"` and `src="/…"` made absolute on `origin`. */
export function absoluteLinks(html: string, origin: string): string {
  return html.replace(/<[a-zA-Z][^>]*>/g, (tag) => tag.replace(APP_PATH_ATTR, (_all, before: string, path: string) => `${before}${origin}${path}"`));
}

/** Elements whose content is never text of the message. */
const HIDDEN = /<(head|style|script|title|template)\b[^>]*>[^]*?<\/\1\s*>|<!--[^]*?-->|<![^>]*>/gi;
/** Elements that stand apart from what is around them by a blank line. */
const PARAGRAPHS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table", "blockquote", "pre", "hr", "dl"]);
/** Elements that start on a line of their own. */
const LINES = new Set(["div", "section", "article", "header", "footer", "main", "nav", "tr", "li", "dt", "dd", "address", "figure", "figcaption", "form"]);

/**
 * The plain-text part of an HTML mail: text with blocks on lines of their own (paragraphs and
 * headings apart by a blank line), list items as "- item" (numbered in an `<ol>`), `<br>` as a
 * line break, images as their `alt`, and links as "text (url)" (the url alone when it is the
 * text), so every link of the HTML part is in the text part too.
 */
export function textOf(html: string): string {
  const out = new Text();
  const links: string[] = [];
  const lists: number[] = []; // per open list: 0 for <ul>, else the next number of an <ol>
  let pre = 0;
  for (const match of html.replace(HIDDEN, "").matchAll(TOKEN)) {
    const [, closing, rawName, attrs = "", text] = match;
    if (text !== undefined || rawName === undefined) {
      out.text(decode(text ?? "<"), pre > 0);
      continue;
    }
    const name = rawName.toLowerCase();
    const end = closing === "/";
    if (name === "br") out.newline();
    else if (name === "img") out.text(decode(attribute(attrs, "alt") ?? ""), false);
    else if (name === "a") {
      if (!end) {
        links.push(decode(attribute(attrs, "href") ?? ""));
        out.mark();
      } else out.link(links.pop() ?? "");
    } else if (name === "li" && !end) {
      out.newline();
      const next = lists.at(-1) ?? 0;
      out.text(next === 0 ? "- " : `${next}. `, true);
      if (next > 0) lists[lists.length - 1] = next + 1;
    } else if (name === "ul" || name === "ol") {
      if (end) lists.pop();
      else lists.push(name === "ol" ? 1 : 0);
      out.blank();
    } else if (name === "td" || name === "th") {
      if (!end) out.text(" ", false);
    } else if (PARAGRAPHS.has(name)) {
      if (name === "pre") pre += end ? -1 : 1;
      out.blank();
    } else if (LINES.has(name)) out.newline();
  }
  return out.done();
}

/** The text being written: lines, with the whitespace of HTML collapsed. */
class Text {
  private written = "";
  private marks: number[] = [];

  text(value: string, keepSpaces: boolean): void {
    const shown = keepSpaces ? value : value.replace(/\s+/g, " ");
    // A space at the start of a line, or after a space, is HTML's whitespace, not text.
    this.written += /(^|\n| )$/.test(this.written) && !keepSpaces ? shown.replace(/^ /, "") : shown;
  }

  newline(): void {
    this.written = this.written.replace(/ +$/, "");
    if (this.written !== "" && !this.written.endsWith("\n")) this.written += "\n";
  }

  blank(): void {
    this.newline();
    if (this.written !== "" && !this.written.endsWith("\n\n")) this.written += "\n";
  }

  /** Where a link's text starts. */
  mark(): void {
    this.marks.push(this.written.length);
  }

  /** Ends a link: its url after its text, unless the text is the url (or there is no url worth showing). */
  link(href: string): void {
    const start = this.marks.pop() ?? this.written.length;
    const label = this.written.slice(start).trim();
    if (href === "" || href.startsWith("#") || label === href || label === href.replace(/^mailto:/, "")) return;
    this.written = label === "" ? this.written + href : `${this.written.replace(/ +$/, "")} (${href})`;
  }

  done(): string {
    return this.written
      .split("\n")
      .map((line) => line.replace(/\s+$/, ""))
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
  }
}

/** An attribute's value in a tag's attribute text (double- or single-quoted, or bare). */
function attribute(attrs: string, name: string): string | undefined {
  const found = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(attrs);
  return found === null ? undefined : (found[1] ?? found[2] ?? found[3]);
}

const NAMED: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** HTML's character references: the named few fw and mail templates write, and numeric ones. */
function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref.startsWith("#")) {
      const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/** The distinct http(s) and mailto links of an HTML part, in order. */
export function linksOf(html: string): string[] {
  const links: string[] = [];
  for (const match of html.matchAll(/<a\b[^>]*?\shref="([^"]*)"/gi)) {
    const href = decode(match[1] ?? "");
    if (/^(https?:|mailto:)/i.test(href) && !links.includes(href)) links.push(href);
  }
  return links;
}
