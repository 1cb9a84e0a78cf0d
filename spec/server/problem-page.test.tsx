import { describe, expect, it } from "vitest";
import { buildErrorContent } from "../../runtime/dev/build-error-page.js";
import { Request } from "../../runtime/http/request.js";
import { templateNode } from "../../runtime/html/node.js";
import { defaultLayout, type Layout } from "../../runtime/server/layout.js";
import { problemContent, renderProblemPage, type Problem } from "../../runtime/server/problem.js";
import { htmlErrors } from "../support/html-validate.js";

// Issue 28, item 9: the problem page was a <main> inside the layout's <main> (two main landmarks
// on every error page, in the example and in apps from `fw new`). One main, whatever the layout.
const problem: Problem = { type: "about:blank", title: "Not Found", status: 404, detail: "No route matches /nowhere.", instance: "/nowhere" };
const request = new Request({ path: "/nowhere" });

const withMain: Layout = ({ title, content }) => (
  <html lang="en">
    <head>
      <title>{title ?? "site"}</title>
    </head>
    <body>
      <header>
        <nav>
          <a href="/">Home</a>
        </nav>
      </header>
      <main>{content}</main>
    </body>
  </html>
);

const withRoleMain: Layout = ({ title, content }) => (
  <html lang="en">
    <head>
      <title>{title ?? "site"}</title>
    </head>
    <body>
      <div role="main">{content}</div>
    </body>
  </html>
);

/** What the JSX pre-renderer makes of `withMain` (the example's and `fw new`'s layouts are compiled so). */
const compiled: Layout = ({ title, content }) =>
  templateNode(
    { tag: "html", strings: ['<html lang="en"><head><title>', "</title></head><body><main>", "</main></body></html>"], attrs: [null, null] },
    [title ?? "site", content],
  );

const mains = (html: string): number => html.match(/<main[\s>]/g)?.length ?? 0;

describe("a problem page has one main landmark whatever the layout", () => {
  it("a layout without <main> (fw's default): the problem is the page's <main>", async () => {
    const html = await renderProblemPage(problemContent(problem), defaultLayout, request);
    expect(mains(html)).toBe(1);
    expect(html).toContain('<body><main class="fw-problem" data-status="404"><h1>404 Not Found</h1>');
    expect(await htmlErrors(html)).toEqual([]);
  });

  it.each([
    ["runtime JSX", withMain],
    ["pre-rendered", compiled],
    // A layout that answers later (reading the signed-in user from a store) is framed the same way.
    ["asynchronous", (async (props) => withMain(props)) as Layout],
  ])("a layout with its own <main> (%s): the problem is a <div> inside it, its class, status and content kept", async (_, layout) => {
    const html = await renderProblemPage(problemContent(problem), layout, request);
    expect(mains(html)).toBe(1);
    expect(html).toContain('<main><div class="fw-problem" data-status="404"><h1>404 Not Found</h1><p class="fw-problem-detail">No route matches /nowhere.</p><p class="fw-problem-instance"><code>/nowhere</code></p></div></main>');
    expect(await htmlErrors(html)).toEqual([]);
  });

  it('a layout whose main landmark is role="main": no <main> element is added', async () => {
    const html = await renderProblemPage(problemContent(problem), withRoleMain, request);
    expect(mains(html)).toBe(0);
    expect(html).toContain('<div role="main"><div class="fw-problem" data-status="404">');
    expect(await htmlErrors(html, { "prefer-native-element": "off" })).toEqual([]);
  });

  // The dev page wraps long diagnostics with an inline style on purpose (problem.ts, WRAPPED).
  it("dev's broken-build page too", async () => {
    const content = buildErrorContent([{ file: "src/app/Index.tsx", line: 3, column: 14, code: "TS2322", category: "error", message: "Type 'number' is not assignable to type 'string'." }], "/");
    const inMain = await renderProblemPage(content, withMain, request);
    expect(mains(inMain)).toBe(1);
    expect(inMain).toContain('<main><div class="fw-problem" data-status="500">');
    expect(await htmlErrors(inMain, { "no-inline-style": "off" })).toEqual([]);
    const alone = await renderProblemPage(content, defaultLayout, request);
    expect(alone).toContain('<body><main class="fw-problem" data-status="500">');
    expect(await htmlErrors(alone, { "no-inline-style": "off" })).toEqual([]);
  });

  it("text that reads like a <main> tag is escaped and does not count", async () => {
    const html = await renderProblemPage(problemContent({ ...problem, detail: 'No route matches /<main role="main">.' }), defaultLayout, request);
    expect(html).toContain('<body><main class="fw-problem"');
  });
});
