/**
 * fw's HTML module: JSX evaluates to a tree (node.ts), rendered to a string with escaping by
 * default; `raw()` is the one way past it. Tree helpers for the layout (`liftTitle`,
 * `isDocument`) are runtime-internal and imported from render.ts directly.
 */
export { escapeHtml, raw, renderDocument, renderHtml } from "./render.js";
export { Fragment } from "./jsx-runtime.js";
export type { Child, Element, Html, Node, Raw } from "./node.js";
