import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeHtml } from "../../runtime/html/render.js";
import { oneLine, oneLineHtml } from "../../runtime/resource/one-line.js";

/** An Index's cells and a reference's label: one line of a text, cut with "…"; as HTML, the cut text escaped and then the "…". */
describe("oneLine and oneLineHtml", () => {
  it("keep the first line, cut at the limit in code points, and say so with …", () => {
    expect(oneLine("  Hello\nworld", 80)).toBe("Hello…");
    expect(oneLine("Hello\n  \n", 80)).toBe("Hello");
    expect(oneLine("abcdef", 3)).toBe("abc…");
    expect(oneLine("ab 😀😀", 4)).toBe("ab 😀…");
    expect(oneLine("short", 80)).toBe("short");
    expect(oneLineHtml(`"Fair" & <other> stories, and more`, 20)).toBe("&quot;Fair&quot; &amp; &lt;other&gt; sto…");
  });

  it("oneLineHtml writes exactly escapeHtml(oneLine(…)), whatever the text", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 120, unit: "grapheme" }),
      fc.array(fc.constantFrom("a", " ", "\n", "\r", "&", "<", ">", '"', "'", "…", "é", "😀"), { maxLength: 100 }).map((parts) => parts.join("")),
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 90 }), (value, limit) => {
        expect(oneLineHtml(value, limit)).toBe(escapeHtml(oneLine(value, limit)));
      }),
      { numRuns: 2000 },
    );
  });
});
