/**
 * Spec 4.1: which file name mounts which method, export and path suffix, and which directory
 * name becomes which path segment. Pure functions of names: no compiler here.
 */

export type RouteMethod = "GET" | "POST" | "PUT" | "DELETE";

export interface FileRole {
  readonly method: RouteMethod;
  /** The export that holds the handler (`new` is reached through `export { x as new }`). */
  readonly exportName: string;
  /** The literal segment the file adds after its directory's path, if any. */
  readonly suffix: string | undefined;
}

const FIXED: Readonly<Record<string, FileRole>> = {
  Index: { method: "GET", exportName: "index", suffix: undefined },
  New: { method: "GET", exportName: "new", suffix: "new" },
  Show: { method: "GET", exportName: "show", suffix: undefined },
  Edit: { method: "GET", exportName: "edit", suffix: "edit" },
  Create: { method: "POST", exportName: "create", suffix: undefined },
  Update: { method: "PUT", exportName: "update", suffix: undefined },
  Destroy: { method: "DELETE", exportName: "destroy", suffix: undefined },
};

/**
 * A route file's base name (without extension) starts with an upper-case letter. Other files
 * under the app folder (`components.tsx`, `helpers.ts`) are plain modules and mount nothing.
 */
export function isRouteFileName(base: string): boolean {
  return /^[A-Z][A-Za-z0-9]*$/.test(base);
}

/** The role of a route file: one of the seven, or a custom name (always GET /name, lower-cased). */
export function fileRole(base: string): FileRole {
  const fixed = FIXED[base];
  if (fixed !== undefined) return fixed;
  return { method: "GET", exportName: base[0]?.toLowerCase() + base.slice(1), suffix: base.toLowerCase() };
}

export type DirSegment =
  | { readonly type: "literal"; readonly text: string }
  | { readonly type: "param"; readonly name: string }
  | { readonly type: "rest"; readonly name: string };

/** A directory name as a path segment: `name` literal, `_id` → `:id`, `__rest` → `*rest`. */
export function dirSegment(name: string): DirSegment {
  if (name.startsWith("__") && name.length > 2) return { type: "rest", name: name.slice(2) };
  if (name.startsWith("_") && name.length > 1) return { type: "param", name: name.slice(1) };
  return { type: "literal", text: name };
}

/** The pattern text for a file: its directories, then the file's own suffix. */
export function patternText(dirs: readonly DirSegment[], suffix: string | undefined): string {
  const parts = dirs.map((d) => (d.type === "literal" ? encodeSegment(d.text) : d.type === "param" ? `:${d.name}` : `*${d.name}`));
  if (suffix !== undefined) parts.push(suffix);
  return "/" + parts.join("/");
}

/** Directory names are literal text; a pattern literal is percent-decoded, so `%` must be escaped. */
function encodeSegment(text: string): string {
  return /^[A-Za-z0-9._~!$&'()*+,;=@-]*$/.test(text) && !text.startsWith(":") ? text : encodeURIComponent(text);
}
