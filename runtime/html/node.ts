/**
 * The HTML tree fw's JSX runtime produces. A tree, not a string, so the first `<title>` can be
 * lifted out for the layout and a root `<html>` detected (spec 2.17).
 */
export interface Element {
  readonly $$: "element";
  readonly tag: string;
  readonly attrs: Readonly<Record<string, unknown>>;
  readonly children: readonly Child[];
}

/** Markup written by hand and sent as is: the explicit escape hatch (`raw()`). */
export interface Raw {
  readonly $$: "raw";
  readonly html: string;
}

export interface Fragment {
  readonly $$: "fragment";
  readonly children: readonly Child[];
}

export type Node = Element | Raw | Fragment;

/** Anything JSX accepts as a child; `null`, `undefined` and booleans render as nothing. */
export type Child = Node | string | number | bigint | boolean | null | undefined | readonly Child[];

/** What a page route returns as content. */
export type Html = Node;

export function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && "$$" in value;
}
