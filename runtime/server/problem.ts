import { STATUS_CODES } from "node:http";
import { statusOf, type HttpFailure } from "../http/failure.js";
import type { Request } from "../http/request.js";
import { element, fragment, isNode, type Child, type Element, type Html } from "../html/node.js";
import { renderHtml } from "../html/render.js";
import type { Answer } from "./answer.js";
import { renderPage, type Layout } from "./layout.js";

/**
 * A failure as the RFC 9457 section 3 data model (spec 2.16): `type` stays "about:blank", so
 * `title` is the status phrase. Only the data model: application/problem+json is not served.
 */
export interface Problem {
  readonly type: "about:blank";
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** The request path. */
  readonly instance: string;
  /**
   * An extension member (RFC 9457 section 3.2), on a 500 only: the id its log line ends with,
   * so a visitor's report can be matched to the cause an operator reads in the log.
   */
  readonly incident?: string;
  /** An extension member beside `incident`: the request's id (`X-Request-Id`), on every log line of that request. */
  readonly requestId?: string;
}

export function problemOf(failure: HttpFailure, instance: string, incident?: string, requestId?: string): Problem {
  const status = statusOf(failure);
  const problem: Problem = { type: "about:blank", title: phrase(status), status, detail: failure.detail, instance };
  if (incident === undefined) return problem;
  return requestId === undefined ? { ...problem, incident } : { ...problem, incident, requestId };
}

export function phrase(status: number): string {
  return STATUS_CODES[status] ?? "Unknown";
}

function el(tag: string, attrs: Record<string, unknown>, ...children: Element["children"]): Element {
  return element(tag, attrs, children);
}

/** The elements `problemContent` wraps a problem in, so `renderProblemPage` can find its own. */
const FRAMES = new WeakSet<Element>();

/**
 * The problem page's content, framed by the layout like any page. Every value is text in the
 * tree, so the renderer escapes it. `details` follow the problem inside the same frame: what
 * `dev` adds (the source location and stack of a 500, the routes under a 404, a failed build's
 * diagnostics); production passes none. The frame is a `<main>`; `renderProblemPage` makes it a
 * `<div>` in a layout that has a `<main>` of its own.
 */
export function problemContent(problem: Problem, details: readonly Child[] = []): Html {
  const frame = el(
    "main",
    { class: "fw-problem", "data-status": problem.status },
    el("h1", {}, `${problem.status} ${problem.title}`),
    el("p", { class: "fw-problem-detail" }, problem.detail),
    el("p", { class: "fw-problem-instance" }, el("code", {}, problem.instance)),
    problem.incident === undefined
      ? null
      : problem.requestId === undefined
        ? el("p", { class: "fw-problem-incident" }, "Incident ", el("code", {}, problem.incident), ": quote it when reporting this error.")
        : el(
            "p",
            { class: "fw-problem-incident" },
            "Incident ",
            el("code", {}, problem.incident),
            ", request ",
            el("code", { class: "fw-problem-request" }, problem.requestId),
            ": quote them when reporting this error.",
          ),
    ...details,
  );
  FRAMES.add(frame);
  return fragment([el("title", {}, problem.title), frame]);
}

/**
 * A `<main>` element, or any element with `role="main"`, in rendered markup. Text and attribute
 * values are escaped, so only a tag matches (or markup written with `raw()`).
 */
const MAIN_LANDMARK = /<main[\s>]|\srole="main"/i;

/**
 * A problem page (`problemContent`, the dev build-error page) as a whole document framed by the
 * layout, with exactly one `main` landmark whatever the layout: the problem's frame stays a
 * `<main>` when the layout has none, and becomes a `<div>` (same class, attributes and content)
 * when the layout has its own (`<main>{content}</main>`, or `role="main"`). The layout is called
 * once, with the problem as `problemContent` made it. Throws when the layout throws.
 */
export function renderProblemPage(content: Html, layout: Layout, request: Request<unknown>): string | Promise<string> {
  const page = renderPage(content, layout, request);
  return page instanceof Promise ? page.then((text) => oneMain(text, content)) : oneMain(page, content);
}

/** The rendered page with the problem's `<main>` frame made a `<div>` when the layout has a main of its own. */
function oneMain(page: string, content: Html): string {
  const frame = frameOf(content);
  if (frame === undefined) return page;
  const around = page.split(renderHtml(frame));
  if (around.length < 2 || !MAIN_LANDMARK.test(around.join(""))) return page;
  return around.join(renderHtml(element("div", frame.attrs, frame.children)));
}

/** The frame `problemContent` put in `content`, if it made it. */
function frameOf(content: Html): Element | undefined {
  const children = content.$$ === "fragment" ? content.children : [content];
  return children.find((child): child is Element => isNode(child) && child.$$ === "element" && FRAMES.has(child));
}

/** The answer when even the layout failed: plain text, nothing from the request reflected. */
export function plainProblem(status: number): string {
  return `${status} ${phrase(status)}\n`;
}

/**
 * A plain-text refusal (`404 Not Found`), for answers fw gives without the layout: a layout
 * that threw, a request over fw's limits or one Node's parser refused, headers Node would not
 * write. `close` ends the connection after it.
 */
export function plainAnswer(status: number, close = false): Answer {
  const answer = { status, headers: ["content-type", "text/plain; charset=utf-8", "x-content-type-options", "nosniff"], body: plainProblem(status) };
  return close ? { ...answer, close } : answer;
}

/**
 * How dev pages keep long text (a diagnostic, a stack, a path) inside the viewport whatever the
 * app's stylesheet says: lines wrap, keeping their breaks and indentation, and a word longer than
 * the line (a path, a type) breaks anywhere. Inline, so it holds on any layout. It lives here,
 * beside the problem page both dev pages extend, so neither dev module loads the other.
 */
export const WRAPPED = "white-space: pre-wrap; overflow-wrap: anywhere; max-width: 100%";
