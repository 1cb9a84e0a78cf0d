/**
 * fw's JSX runtime: the module `fw/jsx-runtime` (and `fw/jsx-dev-runtime`) that TypeScript's
 * `react-jsx` transform imports. JSX evaluates straight to the HTML tree of `node.ts`; function
 * components are called on the spot, so the tree never holds component nodes and rendering is a
 * plain walk over data.
 */
import {
  element as makeElement,
  fragment,
  templateNode,
  type Child,
  type Element,
  type Fragment as FragmentNode,
  type Node,
  type Template,
  type TemplateShape,
} from "./node.js";

/** The props object compiled JSX passes: attributes plus, when there are any, `children`. */
export type Props = { readonly [name: string]: unknown };

/**
 * A function component: called while the JSX is evaluated, with its props (children included),
 * and replaced in the tree by what it returns.
 */
export type Component<P = Props> = (props: P) => Node;

/** Shared by every childless element: no allocation for `<br />`, never mutated. */
const NO_CHILDREN: readonly Child[] = Object.freeze([]);

function childList(children: unknown): readonly Child[] {
  if (children === undefined) return NO_CHILDREN;
  // `jsxs` already passes an array; a lone array child (`{rows.map(...)}`) is a list as well,
  // and the renderer flattens nested arrays either way.
  return Array.isArray(children) ? (children as readonly Child[]) : [children as Child];
}

function element(tag: string, props: Props): Element {
  // Compiled JSX builds a fresh props object per call, so it serves as the attrs unshared and
  // uncopied (a rest spread here was the costliest step of building a page); the renderer
  // skips its `children` key.
  return makeElement(tag, props, "children" in props ? childList(props.children) : NO_CHILDREN);
}

/**
 * `<>…</>` and `<Fragment>`: groups children without a wrapper element. A component like any
 * other, so `jsx` needs no special case for it.
 */
export function Fragment(props: { readonly children?: Child }): FragmentNode {
  return fragment(childList(props.children));
}

/**
 * Builds one JSX node. A string type is an HTML element (attrs are the props minus `children`);
 * a function (components, `Fragment`) is called with the props and its result returned. `key`
 * means nothing to a string renderer and is ignored.
 */
export function jsx(type: string | Component<never>, props: Props, _key?: unknown): Node {
  if (typeof type === "string") return element(type, props);
  // Compiled JSX was already checked against the component's own props type by the JSX
  // namespace below; here every component is just "a function of props".
  return (type as Component)(props);
}

/** `jsx` for a static list of several children: the same thing for this runtime. */
export const jsxs: typeof jsx = jsx;

/** The development transform's entry; the extra source-location arguments are ignored. */
export function jsxDEV(type: string | Component<never>, props: Props, key?: unknown): Node {
  return jsx(type, props, key);
}

/**
 * Compiler output, not for hand-written code: the fixed markup of one pre-rendered element
 * (transformer/jsx-templates.ts), made once when its module loads. Its strings are written as
 * they are, like `raw()`.
 */
export function jsxShape(strings: readonly string[], tag: string, attrs: readonly (string | null)[]): TemplateShape {
  if (strings.length !== attrs.length + 1) {
    throw new Error(`A pre-rendered <${tag}> needs one more string than holes; rebuild the app with fw's transformer.`);
  }
  // The shape is frozen, its two lists are copies no one else holds but are not frozen: V8 (Node
  // 20) reads a frozen array's elements through a generic call in optimized code, and the
  // renderer reads these on every render of the element.
  return Object.freeze({ tag, strings: strings.slice(), attrs: attrs.slice() });
}

/** Compiler output: one use of a pre-rendered element, its values in the shape's holes. */
export function jsxTemplate(shape: TemplateShape, holes: readonly unknown[]): Template {
  return templateNode(shape, holes);
}

/** A value an HTML attribute accepts: `true` writes the bare name; false/null/undefined omit it. */
export type AttrValue = string | number | bigint | boolean | null | undefined;

/** Attributes HTML defines (global and per element): typed strictly when written. */
type KnownAttrName =
  | "accesskey" | "autocapitalize" | "autofocus" | "class" | "contenteditable" | "dir"
  | "draggable" | "enterkeyhint" | "hidden" | "id" | "inert" | "inputmode" | "is" | "itemid"
  | "itemprop" | "itemref" | "itemscope" | "itemtype" | "lang" | "nonce" | "part" | "popover"
  | "role" | "slot" | "spellcheck" | "style" | "tabindex" | "title" | "translate"
  | "accept" | "accept-charset" | "action" | "allow" | "alt" | "as" | "async" | "autocomplete"
  | "autoplay" | "blocking" | "charset" | "checked" | "cite" | "cols" | "colspan" | "content"
  | "controls" | "coords" | "crossorigin" | "data" | "datetime" | "decoding" | "default"
  | "defer" | "dirname" | "disabled" | "download" | "enctype" | "fetchpriority" | "for" | "form"
  | "formaction" | "formenctype" | "formmethod" | "formnovalidate" | "formtarget" | "headers"
  | "height" | "high" | "href" | "hreflang" | "http-equiv" | "integrity" | "ismap" | "kind"
  | "label" | "list" | "loading" | "loop" | "low" | "max" | "maxlength" | "media" | "method"
  | "min" | "minlength" | "multiple" | "muted" | "name" | "novalidate" | "open" | "optimum"
  | "pattern" | "ping" | "placeholder" | "playsinline" | "popovertarget" | "popovertargetaction"
  | "poster" | "preload" | "readonly" | "referrerpolicy" | "rel" | "required" | "reversed"
  | "rows" | "rowspan" | "sandbox" | "scope" | "selected" | "shape" | "size" | "sizes" | "span"
  | "src" | "srcdoc" | "srclang" | "srcset" | "start" | "step" | "target" | "type" | "usemap"
  | "value" | "width" | "wrap";

type KnownAttributes = { readonly [K in KnownAttrName]?: AttrValue };

/**
 * Attributes of any HTML element, under HTML's own names (`class`, `for`, `http-equiv`,
 * `data-*`). The names HTML defines are typed as plain attribute values; any other name is
 * accepted (custom elements, SVG, htmx…). That fallback must also admit `children`, since
 * TypeScript has no "string except children" index type (exclusion patterns made checking
 * JSX ~10x slower), so an unknown name is the one place a node can slip into an attribute.
 */
export interface HtmlAttributes extends KnownAttributes {
  readonly [name: string]: AttrValue | Child;
  readonly children?: Child;
  /** React's name; fw uses HTML's own: write `class`. */
  readonly className?: never;
  /** React's name; fw uses HTML's own: write `for`. */
  readonly htmlFor?: never;
  /** React's escape hatch; fw's is `raw()` as a child. */
  readonly dangerouslySetInnerHTML?: never;
}

/** The types TypeScript looks up for JSX compiled with `jsxImportSource: "fw"`. */
export declare namespace JSX {
  /** What any JSX expression evaluates to. */
  type Element = Node;
  /** Any tag starting lowercase is an element; camelCase SVG tags (`clipPath`) included. */
  interface IntrinsicElements {
    [tag: string]: HtmlAttributes;
  }
  /** Nested JSX arrives in the `children` prop. */
  interface ElementChildrenAttribute {
    // `{}` is TypeScript's required shape here: only the property name matters.
    children: {};
  }
  /** `key` is accepted on components (lists written React-style) and ignored. */
  interface IntrinsicAttributes {
    key?: string | number | bigint | null;
  }
}
