import type { QueryText, Request } from "../http/request.js";
import type { Html } from "../html/node.js";
import type { Parsed, Values } from "../resource/form.js";

/**
 * What a click, change or key event carries (`fw-value-*` attributes, an input's name and value,
 * a key's `key` and the input's `value`): text per name. A form event carries `FormInput<M>`.
 */
export type LiveValues = Values;

/**
 * What a form event (`view.form("save", …)` or `fw-submit` / `fw-change` on a `<form>`) hands its
 * handler when the handler's payload type names a model: the submission read by the model's
 * `Form`, exactly as a POST to a derived Create reads it (same typia rules, same messages).
 */
export type FormInput<A> = Parsed<A>;

/** What `render` gets beside the state: what a live page's markup may need from fw. */
export interface LiveView {
  /** The session's CSRF token (a live form that must work without JavaScript posts it in `_csrf`). */
  readonly csrf: string;
  /** The page's path and query, as the browser shows it. */
  readonly path: string;
  /**
   * A model form bound to a form event: `view.form("save", { values, errors, change: "check" })`
   * renders the model's fields (as a derived New does) inside a `<form>` whose submit sends the
   * event `save` over the socket, and which posts to the page itself without JavaScript.
   * `change` names an event sent (debounced) as the user types: validation as you type.
   */
  form(event: string, props?: LiveFormProps): Html;
}

export interface LiveFormProps {
  /** The text per field to show (what the user typed, or a row's values). */
  readonly values?: Values;
  /** The problems to show beside their fields (`FormInput`'s `errors` when `ok` is false). */
  readonly errors?: import("../resource/form-errors.js").FormErrors;
  /** The submit button's label. Default "Save". */
  readonly submit?: string;
  /** An event sent with the whole form as the user types (debounced). */
  readonly change?: string;
}

/** What an event handler (and `refresh`) gets beside the state and the payload. */
export interface LiveContext<C, P, Q = QueryText> {
  /**
   * The page's request as it was mounted: its path parameters and query (from the page's URL;
   * the parameters `mount` declares decoded, as `request.queryParams`), the session and
   * `currentUser` read at the socket's handshake. Never anything an event sent.
   */
  readonly request: Request<P, Q>;
  /** The capabilities the page asked for (`mount`'s second parameter), supplied by the build. */
  readonly capabilities: C;
  /**
   * Tells every live page subscribed to `topic` (in this process and, with a fan-out, in the
   * app's other processes) to refresh, with an optional message of text.
   */
  publish(topic: string, message?: string): void;
}

/**
 * An event handler: the next state from the state and the event's payload. The payload's type is
 * the handler's to declare — `LiveValues` for click / change / key events, `FormInput<Model>` for
 * a form event — and the build checks each event named in the page's markup against it (TS91025,
 * TS91026).
 */
// biome-ignore lint/suspicious/noExplicitAny: each handler narrows its payload; the build checks it against the markup
export type LiveHandler<S, C, P, Q = QueryText> = (state: S, payload: any, context: LiveContext<C, P, Q>) => S | Promise<S>;

/** A live page as its route file declares it: `export const index = live({ mount, render, events })`. */
export interface LiveSpec<S, C, P, Q = QueryText> {
  /**
   * The page's first state, from the page's request (and the capabilities it asks for): for the
   * first GET, and again on each socket (re)connect. The query parameters it declares
   * (`Request<Params, { page?: number }>`) are decoded as a handler's are: a bad value is a 400
   * on the GET and closes the socket (1008).
   */
  mount(request: Request<P, Q>, capabilities: C): S | Promise<S>;
  /** The page's markup for a state: rendered inside the layout on GET, diffed on the socket. */
  render(state: S, view: LiveView): Html;
  /** The events the markup names (`fw-click="increment"`), by name. */
  readonly events?: Readonly<Record<string, LiveHandler<S, C, P, Q>>>;
  /** The topics the page listens to: `publish(topic)` anywhere refreshes it. */
  readonly topics?: readonly string[] | ((state: S, request: Request<P, Q>) => readonly string[]);
  /**
   * The next state when a topic the page listens to is published. Default: mount again (the
   * page reloads its data from its request).
   */
  refresh?(state: S, message: string | undefined, context: LiveContext<C, P, Q>): S | Promise<S>;
  /**
   * Whether the sockets showing the same view of the page (the same path and query, the same
   * `currentUser`, the same session but for its CSRF token) share one `mount` when a topic is
   * published, and so one state, instead of mounting once each. Default: true for a page
   * without events, false for a page with events (a handler might change its state in place,
   * which the other sockets would then see); say `true` on such a page when its handlers return
   * new states. Say `false` when `mount` reads what a view leaves out: a header
   * (`Accept-Language`) or the client's address. A page with its own `refresh` never shares.
   */
  readonly shared?: boolean;
  /**
   * How long `mount`, an event's handler or `refresh` may take on the socket before fw gives up
   * on it (a store call that never returns): the page shows the problem, keeps its state, and
   * the socket goes on with the next event; the late result is dropped. Default 30 s, as an
   * HTTP handler's `handlerTimeoutMs`.
   */
  readonly handlerTimeoutMs?: number;
}

const LIVE_PAGE: unique symbol = Symbol("fw.livePage");

/**
 * A route file's live page (what `live()` makes). The build recognises it by this type and mounts
 * the page's GET (and its no-JavaScript POST) where the file says, and its socket
 * `WS /fw/live/<page>` after the table (spec 4.6).
 */
export class LivePage<S, C = Record<string, never>, P = Record<string, string>, Q = QueryText> {
  readonly [LIVE_PAGE] = true as const;
  constructor(readonly spec: LiveSpec<S, C, P, Q>) {}
}

/** Declares a live page: `export const index = live({ mount, render, events })`. */
export function live<S, C = Record<string, never>, P = Record<string, string>, Q = QueryText>(spec: LiveSpec<S, C, P, Q>): LivePage<S, C, P, Q> {
  return new LivePage(spec);
}
