/**
 * The tree a live page's render travels as (live protocol, "The tree"): fw's HTML nodes turned
 * into plain JSON that keeps the pre-rendered templates' split between fixed markup (sent once
 * per connection, by shape id) and holes (sent when they change), the diff between two such
 * trees, and applying a diff. `treeHtml(applyDiff(prev, diffTree(prev, next)))` is always the
 * HTML `renderHtml` writes for the next render output.
 */
import { NODE, templateNode, type Child, type Node as HtmlNode, type Template, type TemplateShape } from "../html/node.js";
import { escapeHtml, renderHtml } from "../html/render.js";

/** Markup (already escaped) | a template `{s: shape id, d: holes}` | a list (concatenation). */
export type Node = string | TemplateTree | readonly Node[];

export interface TemplateTree {
  /** The shape's id in this process (`shapeId`); its strings travel once per connection. */
  readonly s: number;
  /** One node per hole: a child hole's content, or an attribute hole's exact attribute text. */
  readonly d: readonly Node[];
}

/** A node that replaces the old one, or the holes that changed in the old template (`{u:{}}`: nothing changed). */
export type Diff = Node | Update;

export interface Update {
  /** The holes (of a template) or items (of a list) that changed, by index. */
  readonly u: Readonly<Record<string, Diff>>;
  /**
   * A list's new length, when it changed: items past it are dropped, and each new item (at an
   * index the old list did not have) comes whole in `u`.
   */
  readonly l?: number;
}

/** Where a tree's shape strings are looked up (the process's registry, or what a client was sent). */
export interface ShapeSource {
  get(id: number): readonly string[] | undefined;
}

const ids = new WeakMap<TemplateShape, number>();
/** Shape id → its strings: shapes are made once per place in the source, so this stays small. */
const strings = new Map<number, readonly string[]>();
let nextId = 1;

/** The process's id for a template shape, assigned on first sight. */
export function shapeId(shape: TemplateShape): number {
  let id = ids.get(shape);
  if (id === undefined) {
    id = nextId++;
    ids.set(shape, id);
    strings.set(id, shape.strings);
  }
  return id;
}

/** Every shape this process has given an id: the server's side of `treeHtml`. */
export const knownShapes: ShapeSource = strings;

/**
 * A render output as a tree. `onShape` hears the id of every template shape met (to send the
 * strings a connection has not had yet). Element nodes (runtime JSX, not pre-rendered), raw
 * markup, text and numbers become their rendered HTML; fragments and arrays lists.
 */
export function toTree(child: Child, onShape?: (id: number) => void): Node {
  if (typeof child === "string") return escapeHtml(child);
  if (typeof child === "number" || typeof child === "bigint") return String(child);
  if (typeof child !== "object" || child === null) return "";
  if (Array.isArray(child)) return (child as readonly Child[]).map((item) => toTree(item, onShape));
  const node = child as HtmlNode;
  if (node[NODE] !== true) return renderHtml(node); // throws the renderer's own message
  switch (node.$$) {
    case "template":
      return templateTree(node, onShape);
    case "fragment":
      return node.children.map((item) => toTree(item, onShape));
    case "raw":
      return node.html;
    default:
      return renderHtml(node);
  }
}

function templateTree(template: Template, onShape: ((id: number) => void) | undefined): TemplateTree {
  const { attrs } = template.shape;
  const s = shapeId(template.shape);
  onShape?.(s);
  const d: Node[] = [];
  for (let i = 0; i < template.holes.length; i++) {
    const name = attrs[i];
    d.push(name === null || name === undefined ? toTree(template.holes[i] as Child, onShape) : attributeText(name, template.holes[i]));
  }
  return { s, d };
}

/** One-attribute shapes by name, so an attribute hole is written by the renderer itself (bounded like its caches). */
const attributeShapes = new Map<string, TemplateShape>();

/** An attribute hole exactly as `renderHtml` writes it: ` name="value"`, ` name`, or nothing. */
function attributeText(name: string, value: unknown): string {
  let shape = attributeShapes.get(name);
  if (shape === undefined) {
    shape = Object.freeze({ tag: "x", strings: ["", ""], attrs: [name] });
    if (attributeShapes.size < 2048) attributeShapes.set(name, shape);
  }
  return renderHtml(templateNode(shape, [value]));
}

/** The HTML a tree stands for: what the client builds from it and morphs the page to. */
export function treeHtml(tree: Node, shapes: ShapeSource = knownShapes): string {
  if (typeof tree === "string") return tree;
  if (isList(tree)) {
    let html = "";
    for (const item of tree) html += treeHtml(item, shapes);
    return html;
  }
  const parts = shapes.get(tree.s);
  if (parts === undefined) throw new Error(`fw/live: no strings for template shape ${tree.s}.`);
  let html = parts[0] as string;
  for (let i = 0; i < tree.d.length; i++) html += treeHtml(tree.d[i] as Node, shapes) + (parts[i + 1] as string);
  return html;
}

function isList(node: Node | Diff): node is readonly Node[] {
  return Array.isArray(node);
}

function isUpdate(diff: Diff): diff is Update {
  return typeof diff === "object" && !isList(diff) && "u" in diff;
}

/** Nothing changed (also what an event that changed nothing is answered with). */
export const UNCHANGED: Update = Object.freeze({ u: Object.freeze({}) });

function applyToList(list: readonly Node[], diff: Update): Node {
  const length = diff.l ?? list.length;
  if (!Number.isInteger(length) || length < 0) throw new Error(`fw/live: a list cannot have length ${String(diff.l)}.`);
  const items: (Node | undefined)[] = list.slice(0, length);
  for (const key of Object.keys(diff.u)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index >= length) throw new Error(`fw/live: a list of ${length} has no item ${key}.`);
    const change = diff.u[key] as Diff;
    items[index] = index < list.length ? applyDiff(list[index] as Node, change) : applyDiff("", change);
  }
  for (let i = 0; i < length; i++) if (items[i] === undefined) throw new Error(`fw/live: the list's new item ${i} did not come whole.`);
  return items as Node[];
}

/**
 * What turns `prev` into `next`: for a template whose shape stayed, the holes that changed
 * (recursively); for a list, the items that changed (recursively), the new ones whole, and its
 * length when that changed (a row toggled in a 50-row list sends that row's holes, not 50 rows);
 * anything else changed is replaced whole. Equal trees give `UNCHANGED`.
 */
export function diffTree(prev: Node, next: Node): Diff {
  if (sameNode(prev, next)) return UNCHANGED;
  if (isList(prev) && isList(next)) {
    const u: Record<string, Diff> = {};
    const shared = Math.min(prev.length, next.length);
    for (let i = 0; i < shared; i++) {
      if (!sameNode(prev[i] as Node, next[i] as Node)) u[i] = diffTree(prev[i] as Node, next[i] as Node);
    }
    for (let i = shared; i < next.length; i++) u[i] = next[i] as Node;
    return prev.length === next.length ? { u } : { u, l: next.length };
  }
  if (typeof prev === "object" && typeof next === "object" && !isList(prev) && !isList(next) && prev.s === next.s && prev.d.length === next.d.length) {
    const u: Record<string, Diff> = {};
    for (let i = 0; i < next.d.length; i++) {
      const before = prev.d[i] as Node;
      const after = next.d[i] as Node;
      if (!sameNode(before, after)) u[i] = diffTree(before, after);
    }
    return { u };
  }
  return next;
}

/** The tree a diff makes of `tree` (a new tree; `tree` is not changed). */
export function applyDiff(tree: Node, diff: Diff): Node {
  if (!isUpdate(diff)) return diff;
  const keys = Object.keys(diff.u);
  if (keys.length === 0 && diff.l === undefined) return tree;
  if (typeof tree !== "object") throw new Error("fw/live: a hole update for a node that is not a template or a list.");
  if (isList(tree)) return applyToList(tree, diff);
  const d = tree.d.slice();
  for (const key of keys) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index >= d.length) throw new Error(`fw/live: template shape ${tree.s} has no hole ${key}.`);
    d[index] = applyDiff(d[index] as Node, diff.u[key] as Diff);
  }
  return { s: tree.s, d };
}

/** Deep equality of two trees. */
export function sameNode(a: Node, b: Node): boolean {
  if (a === b) return true;
  if (typeof a === "string" || typeof b === "string") return false;
  if (isList(a)) {
    if (!isList(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameNode(a[i] as Node, b[i] as Node)) return false;
    return true;
  }
  if (isList(b) || a.s !== b.s || a.d.length !== b.d.length) return false;
  for (let i = 0; i < a.d.length; i++) if (!sameNode(a.d[i] as Node, b.d[i] as Node)) return false;
  return true;
}

/** How many characters `treeHtml(tree)` has, counted without building it; stops counting once past `limit`. */
export function treeLength(tree: Node, shapes: ShapeSource = knownShapes, limit = Number.POSITIVE_INFINITY): number {
  if (typeof tree === "string") return tree.length;
  let length = 0;
  if (isList(tree)) {
    for (const item of tree) {
      length += treeLength(item, shapes, limit - length);
      if (length > limit) return length;
    }
    return length;
  }
  for (const part of shapes.get(tree.s) ?? []) length += part.length;
  for (const hole of tree.d) {
    if (length > limit) return length;
    length += treeLength(hole, shapes, limit - length);
  }
  return length;
}
