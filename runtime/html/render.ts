/**
 * Renders fw's HTML tree (node.ts) to a string, escaping by default, plus the two tree queries
 * the page layout needs: lifting out the first `<title>` and recognising a whole document.
 */
import { element, fragment, NODE, rawNode, templateNode, type Child, type Element, type Node, type Raw, type Template } from "./node.js";

/** Elements HTML defines as having no content and no end tag. */
const VOID_TAGS: ReadonlySet<string> = new Set([
  "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
  "wbr",
]);

/**
 * Tag and attribute names are validated once and remembered, so the hot path is one hash
 * lookup. The caps stop names computed from data (spread props) from growing the caches
 * without bound: past them names are still checked, just not remembered.
 */
const CACHE_LIMIT = 2048;
/** Validated tag name → whether it is a void element. */
const tagCache = new Map<string, boolean>();
const attrNameCache = new Set<string>();

// A tag must start with a letter, or the browser reads `<` as text and the tag breaks.
const TAG_NAME = /^[A-Za-z][A-Za-z0-9_:.-]*$/;
const ATTR_NAME = /^[A-Za-z0-9_:.-]+$/;
// Global so a failed test costs no allocation and a match leaves its position in lastIndex.
const NEEDS_ESCAPE = /[&<>"']/g;

/**
 * How far past an escaped character the next one is looked for character by character before
 * handing the search back to the regex: markup-like text (specials a few characters apart) stays
 * in the cheap loop, prose (specials hundreds of characters apart) skips ahead in native code.
 */
const LOOK_AHEAD = 16;

/**
 * Escapes `& < > " '` so `text` reads literally both as element text and inside a quoted
 * attribute value. Returns `text` itself when nothing needs escaping.
 */
export function escapeHtml(text: string): string {
  NEEDS_ESCAPE.lastIndex = 0;
  if (!NEEDS_ESCAPE.test(text)) return text;
  let at = NEEDS_ESCAPE.lastIndex - 1; // the character to escape next
  let out = "";
  let last = 0;
  for (;;) {
    out += text.slice(last, at) + (entityFor(text.charCodeAt(at)) as string);
    last = at + 1;
    const stop = Math.min(text.length, last + LOOK_AHEAD);
    at = last;
    while (at < stop && entityFor(text.charCodeAt(at)) === undefined) at++;
    if (at < stop) continue;
    if (stop === text.length) break;
    NEEDS_ESCAPE.lastIndex = stop;
    if (!NEEDS_ESCAPE.test(text)) break;
    at = NEEDS_ESCAPE.lastIndex - 1;
  }
  return out + text.slice(last);
}

function entityFor(code: number): string | undefined {
  switch (code) {
    case 38: return "&amp;";
    case 60: return "&lt;";
    case 62: return "&gt;";
    case 34: return "&quot;";
    case 39: return "&#39;";
    default: return undefined;
  }
}

/**
 * Markup inserted exactly as written: the one way past escaping. Never pass it text that
 * came from a user. Inline `<script>`/`<style>` content needs it, since text children are
 * escaped like anywhere else (and scripts do not decode entities).
 */
export function raw(html: string): Raw {
  return rawNode(html);
}

/**
 * Renders a tree to HTML. Text and attribute values are escaped, including inside `<script>`
 * and `<style>` (safe by default; write their content with `raw()`). Numbers and bigints render
 * as text; null, undefined and booleans as nothing; arrays and fragments flatten. Attribute
 * `true` writes the bare name, `false`/null/undefined omit it, anything else is String()-ed.
 * Throws rather than emit a broken tag: on an invalid tag or attribute name, on children given
 * to a void element, and on a child that is not part of the tree's types (a Date, a plain
 * object).
 */
export function renderHtml(child: Child): string {
  if (typeof child === "string") return escapeHtml(child);
  if (typeof child === "object" && child !== null) {
    return isList(child) ? renderList(child) : renderNode(child);
  }
  if (typeof child === "number" || typeof child === "bigint") return String(child);
  return ""; // null, undefined, true, false
}

/** A whole page: the doctype, then the tree (whose root should be `<html>`). */
export function renderDocument(node: Child): string {
  return "<!DOCTYPE html>" + renderHtml(node);
}

function isList(child: Child): child is readonly Child[] {
  return Array.isArray(child);
}

function renderList(children: readonly Child[]): string {
  let html = "";
  for (let i = 0; i < children.length; i++) html += renderHtml(children[i]);
  return html;
}

function renderNode(node: Node): string {
  if (node[NODE] !== true) throw notAChild(node);
  switch (node.$$) {
    case "element": return renderElement(node);
    case "raw": return node.html;
    case "fragment": return renderList(node.children);
    case "template": return renderTemplate(node);
    default: throw notAChild(node);
  }
}

/** Objects outside the tree's types only get here from untyped code: say what arrived. */
function notAChild(value: unknown): TypeError {
  const kind = Object.prototype.toString.call(value);
  return new TypeError(`fw cannot render ${kind} as HTML; convert it to a string first.`);
}

function renderElement(element: Element): string {
  const { tag, children } = element;
  const open = "<" + tag + renderAttrs(tag, element.attrs) + ">";
  if (isVoidTag(tag)) {
    if (children.length > 0) {
      throw new Error(`<${tag}> is a void element and cannot have children.`);
    }
    return open;
  }
  return open + renderList(children) + "</" + tag + ">";
}

/** Validates `tag` (throwing on a bad name) and says whether it is a void element. */
function isVoidTag(tag: string): boolean {
  const cached = tagCache.get(tag);
  if (cached !== undefined) return cached;
  if (!TAG_NAME.test(tag)) {
    const rule = "a letter, then letters, digits, _ : . or -";
    throw new Error(`Invalid HTML tag name ${JSON.stringify(tag)}: ${rule}.`);
  }
  const isVoid = VOID_TAGS.has(tag.toLowerCase());
  if (tagCache.size < CACHE_LIMIT) tagCache.set(tag, isVoid);
  return isVoid;
}

function renderAttrs(tag: string, attrs: Readonly<Record<string, unknown>>): string {
  let html = "";
  for (const name in attrs) {
    if (name === "children") continue; // JSX props double as attrs (jsx-runtime.ts)
    checkAttrName(tag, name);
    html += renderAttr(name, attrs[name]);
  }
  return html;
}

/** One attribute: `true` the bare name, false/null/undefined nothing, else the escaped value. */
function renderAttr(name: string, value: unknown): string {
  if (value === null || value === undefined || value === false) return "";
  return value === true ? " " + name : " " + name + '="' + attrText(value) + '"';
}

/**
 * A pre-rendered element: its fixed markup with each hole rendered in place. The compiler
 * checked the tag and attribute names when it wrote the shape.
 */
function renderTemplate(template: Template): string {
  const { strings, attrs } = template.shape;
  const holes = template.holes;
  let html = strings[0] as string;
  for (let i = 0; i < holes.length; i++) {
    const name = attrs[i];
    html += (name === null || name === undefined ? renderHtml(holes[i] as Child) : renderAttr(name, holes[i])) + strings[i + 1];
  }
  return html;
}

function attrText(value: unknown): string {
  return escapeHtml(typeof value === "string" ? value : String(value));
}

function checkAttrName(tag: string, name: string): void {
  if (attrNameCache.has(name)) return;
  if (!ATTR_NAME.test(name)) {
    const rule = "letters, digits, _ : . or -";
    throw new Error(`Invalid attribute name ${JSON.stringify(name)} on <${tag}>: ${rule} only.`);
  }
  if (attrNameCache.size < CACHE_LIMIT) attrNameCache.add(name);
}

/**
 * The plain text of a tree: text as written (unescaped), numbers as text, raw nodes' markup
 * as is, elements and fragments by their descendants' text.
 */
export function textOf(child: Child): string {
  if (typeof child === "string") return child;
  if (typeof child === "number" || typeof child === "bigint") return String(child);
  if (typeof child !== "object" || child === null) return "";
  if (isList(child)) return child.map(textOf).join("");
  switch (child.$$) {
    case "raw": return child.html;
    case "template": return templateText(child);
    default: return textOf(child.children);
  }
}

/**
 * The text of a pre-rendered element: its fixed markup without tags, unescaped, and the text of
 * its child holes. The compiler escapes every `<` and `>` inside text and attribute values, so
 * each `<…>` in a shape's strings is a tag (one may span attribute holes).
 */
function templateText(template: Template): string {
  const { strings, attrs } = template.shape;
  let text = "";
  let inTag = false;
  for (let i = 0; i < strings.length; i++) {
    let piece = "";
    for (const char of strings[i] as string) {
      if (inTag) inTag = char !== ">";
      else if (char === "<") inTag = true;
      else piece += char;
    }
    text += unescapeHtml(piece);
    if (i < template.holes.length && attrs[i] === null) text += textOf(template.holes[i] as Child);
  }
  return text;
}

const ENTITY = /&(amp|lt|gt|quot|#39);/g;
const UNESCAPED: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" };

/** Undoes `escapeHtml` (its five entities only). */
function unescapeHtml(html: string): string {
  return html.replace(ENTITY, (_, name: string) => UNESCAPED[name] as string);
}

function hasTag(element: Element | Template, name: string): boolean {
  const tag = element.$$ === "template" ? element.shape.tag : element.tag;
  return tag === name || tag.toLowerCase() === name;
}

/**
 * Elements whose `<title>` is not the document's: SVG and MathML titles are tooltips in their
 * own namespace, and `<template>` content is not part of the document.
 */
const FOREIGN_ROOTS: ReadonlySet<string> = new Set(["svg", "math", "template"]);

/** Marks a subtree that was the title itself, so its parent drops it rather than keep a hole. */
const REMOVED = Symbol("removed");

/** A title found in a subtree, and that subtree rebuilt without it. */
interface Lifted {
  readonly title: string;
  readonly rest: Child | typeof REMOVED;
}

/**
 * Takes the first `<title>` in document order out of a tree, for the layout to place in the
 * head: its plain text (unescaped) and the tree without it. Only the path down to the title is
 * copied; everything else is shared. With no title, `content` is `child` itself.
 */
export function liftTitle(child: Child): { title: string | undefined; content: Child } {
  const lifted = liftFrom(child);
  if (lifted === undefined) return { title: undefined, content: child };
  return { title: lifted.title, content: lifted.rest === REMOVED ? null : lifted.rest };
}

function liftFrom(child: Child): Lifted | undefined {
  if (typeof child !== "object" || child === null) return undefined;
  if (isList(child)) return liftFromList(child);
  if (child.$$ === "element") return liftFromElement(child);
  if (child.$$ === "template") return liftFromTemplate(child);
  if (child.$$ !== "fragment") return undefined; // raw markup is not searched
  const lifted = liftFromList(child.children);
  return lifted && { title: lifted.title, rest: fragment(lifted.rest) };
}

function liftFromElement(node: Element): Lifted | undefined {
  if (hasTag(node, "title")) return { title: textOf(node.children), rest: REMOVED };
  if (FOREIGN_ROOTS.has(node.tag.toLowerCase())) return undefined;
  const lifted = liftFromList(node.children);
  if (lifted === undefined) return undefined;
  const { tag, attrs } = node;
  return { title: lifted.title, rest: element(tag, attrs, lifted.rest) };
}

/**
 * A pre-rendered element's fixed markup holds no title (the compiler leaves `<title>` and
 * foreign roots with holes to the runtime), so only its child holes are searched, in order.
 * A hole that was the title is emptied, not removed: the holes line up with the markup.
 */
function liftFromTemplate(template: Template): Lifted | undefined {
  const { attrs } = template.shape;
  const holes = template.holes;
  for (let i = 0; i < holes.length; i++) {
    if (attrs[i] !== null) continue;
    const lifted = liftFrom(holes[i] as Child);
    if (lifted === undefined) continue;
    const rest = holes.slice();
    rest[i] = lifted.rest === REMOVED ? null : lifted.rest;
    return { title: lifted.title, rest: templateNode(template.shape, rest) };
  }
  return undefined;
}

function liftFromList(list: readonly Child[]): { title: string; rest: Child[] } | undefined {
  for (let i = 0; i < list.length; i++) {
    const lifted = liftFrom(list[i]);
    if (lifted === undefined) continue;
    const rest = list.slice();
    if (lifted.rest === REMOVED) rest.splice(i, 1);
    else rest[i] = lifted.rest;
    return { title: lifted.title, rest };
  }
  return undefined;
}

/**
 * Whether a tree is a whole document: its root is an `<html>` element, possibly wrapped in
 * fragments or lists whose other entries render as nothing or as whitespace.
 */
export function isDocument(child: Child): boolean {
  const root = soleElement(child);
  return root !== null && root !== false && hasTag(root, "html");
}

// HTML's own whitespace; a non-breaking space is content.
const BLANK = /^[ \t\n\f\r]*$/;

/**
 * The one element a tree consists of (a pre-rendered one included); null when it renders
 * nothing, false when more.
 */
function soleElement(child: Child): Element | Template | null | false {
  if (child === null || child === undefined || typeof child === "boolean") return null;
  if (typeof child === "string") return BLANK.test(child) ? null : false;
  if (typeof child !== "object") return false;
  if (isList(child)) return soleElementOf(child);
  if (child.$$ === "element" || child.$$ === "template") return child;
  return child.$$ === "fragment" ? soleElementOf(child.children) : false;
}

function soleElementOf(list: readonly Child[]): Element | Template | null | false {
  let found: Element | Template | null = null;
  for (const child of list) {
    const element = soleElement(child);
    if (element === false || (element !== null && found !== null)) return false;
    if (element !== null) found = element;
  }
  return found;
}
