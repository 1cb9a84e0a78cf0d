/**
 * The HTML tree fw's JSX runtime produces. A tree, not a string, so the first `<title>` can be
 * lifted out for the layout and a root `<html>` detected (spec 2.17).
 *
 * Every node carries the `NODE` symbol. JSON cannot hold a symbol, so data parsed from a request
 * (`{"$$":"raw","html":"<script>…"}`) can never pass for markup: the renderer refuses any object
 * without the brand. Make nodes with JSX or the constructors below.
 */
export const NODE: unique symbol = Symbol("fw.node");

export interface Element {
  readonly [NODE]: true;
  readonly $$: "element";
  readonly tag: string;
  /** The attributes; a `children` key (JSX props are used as they are) is not one. */
  readonly attrs: Readonly<Record<string, unknown>>;
  readonly children: readonly Child[];
}

/** Markup written by hand and sent as is: the explicit escape hatch (`raw()`). */
export interface Raw {
  readonly [NODE]: true;
  readonly $$: "raw";
  readonly html: string;
}

export interface Fragment {
  readonly [NODE]: true;
  readonly $$: "fragment";
  readonly children: readonly Child[];
}

/**
 * The fixed part of an element the compiler pre-rendered (transformer/jsx-templates.ts): its
 * markup, already escaped, cut where values go in. Made once per place in the source, at module
 * load, and shared by every node built there.
 */
export interface TemplateShape {
  /** The root element's tag: a template is always one element, so `isDocument` can see `<html>`. */
  readonly tag: string;
  /** Markup around the holes, one more than there are holes: trusted, written as is. */
  readonly strings: readonly string[];
  /**
   * Per hole, the attribute it fills (rendered as the JSX runtime renders an attribute value) or
   * null for a child (rendered and escaped like any child).
   */
  readonly attrs: readonly (string | null)[];
}

/**
 * An element pre-rendered at build time: the shape's markup with this use's values in its holes.
 * Renders exactly as the element tree the JSX runtime would have built; the compiler never
 * folds a `<title>` into one, so `liftTitle` still finds the page's title (in a child hole).
 */
export interface Template {
  readonly [NODE]: true;
  readonly $$: "template";
  readonly shape: TemplateShape;
  readonly holes: readonly unknown[];
}

export type Node = Element | Raw | Fragment | Template;

/** Anything JSX accepts as a child; `null`, `undefined` and booleans render as nothing. */
export type Child = Node | string | number | bigint | boolean | null | undefined | readonly Child[];

/** What a page route returns as content. */
export type Html = Node;

export function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && (value as Partial<Node>)[NODE] === true;
}

export function element(tag: string, attrs: Readonly<Record<string, unknown>>, children: readonly Child[]): Element {
  return { [NODE]: true, $$: "element", tag, attrs, children };
}

export function fragment(children: readonly Child[]): Fragment {
  return { [NODE]: true, $$: "fragment", children };
}

export function templateNode(shape: TemplateShape, holes: readonly unknown[]): Template {
  return { [NODE]: true, $$: "template", shape, holes };
}

export function rawNode(html: string): Raw {
  return { [NODE]: true, $$: "raw", html };
}
