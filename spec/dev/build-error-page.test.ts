import { describe, expect, it } from "vitest";
import { buildErrorContent } from "../../runtime/dev/build-error-page.js";
import { renderHtml } from "../../runtime/html/render.js";

// Issue 22, item 9: a long diagnostic (a type spelled out, a deep path) overflowed the viewport.
describe("the dev page of a broken build", () => {
  const long = `Type '{ ${"field: string; ".repeat(40)}}' is not assignable to type 'Post'.\n  Property 'title' is missing.`;
  const html = renderHtml(
    buildErrorContent([{ file: `src/app/${"deeply/".repeat(20)}Show.tsx`, line: 3, column: 5, category: "error", code: "TS2322", message: long }], "/posts/1"),
  );

  it("wraps each diagnostic's message inside the viewport, keeping its line breaks and indentation", () => {
    const pre = /<pre class="fw-build-message" style="([^"]*)">/.exec(html);
    expect(pre?.[1]).toContain("white-space: pre-wrap");
    expect(pre?.[1]).toContain("overflow-wrap: anywhere");
    expect(html).toContain("\n  Property &#39;title&#39; is missing.");
  });

  it("lets a long file path break anywhere too", () => {
    expect(html).toMatch(/<li class="fw-build-error" style="[^"]*overflow-wrap: anywhere[^"]*">/);
  });
});
