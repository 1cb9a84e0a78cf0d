import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { element as makeElement, type Child, type Element, type Node } from "../../runtime/html/node.js";
import { escapeHtml, raw, renderDocument, renderHtml } from "../../runtime/html/render.js";

function element(tag: string, attrs: Record<string, unknown> = {}, children: Child[] = []): Element {
  return makeElement(tag, attrs, children);
}

describe("escapeHtml", () => {
  it("escapes the five characters that matter", () => {
    expect(escapeHtml(`<a href="x">Tom & 'Jerry'</a>`)).toBe(
      "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;",
    );
  });

  it("returns the input when nothing needs escaping", () => {
    const text = "plain text, nothing to do";
    expect(escapeHtml(text)).toBe(text);
    expect(escapeHtml("")).toBe("");
  });

  it("escapes at the very start and end", () => {
    expect(escapeHtml("&")).toBe("&amp;");
    expect(escapeHtml("<x>")).toBe("&lt;x&gt;");
  });

  it("does not double-decode: an entity is escaped like any text", () => {
    expect(escapeHtml("&amp;")).toBe("&amp;amp;");
  });

  it("equals a one-character-at-a-time escape on any text, specials dense or far apart", () => {
    const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
    const reference = (text: string): string => [...text].map((c) => ENTITIES[c] ?? c).join("");
    // Runs of plain letters of every length around the look-ahead window, between specials.
    const piece = fc.oneof(fc.constantFrom("&", "<", ">", '"', "'"), fc.string({ maxLength: 40 }), fc.nat({ max: 40 }).map((n) => "x".repeat(n)));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        expect(escapeHtml(text)).toBe(reference(text));
      }),
      { numRuns: 2000 },
    );
    expect(escapeHtml(`${"a".repeat(16)}&${"b".repeat(17)}<`)).toBe(`${"a".repeat(16)}&amp;${"b".repeat(17)}&lt;`);
  });
});

describe("renderHtml: text", () => {
  it("escapes text children", () => {
    const evil = `<script>alert("x")</script> & 'y'`;
    expect(renderHtml(<p>{evil}</p>)).toBe(
      "<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</p>",
    );
  });

  it("renders numbers and bigints as text, including 0", () => {
    expect(renderHtml(<p>{0} {1.5} {12n}</p>)).toBe("<p>0 1.5 12</p>");
    expect(renderHtml(42)).toBe("42");
  });

  it("renders null, undefined and booleans as nothing", () => {
    const maybe: string | null = null;
    expect(renderHtml(<p>{null}{undefined}{false}{true}{maybe}</p>)).toBe("<p></p>");
    expect(renderHtml(null)).toBe("");
    expect(renderHtml(false)).toBe("");
  });

  it("escapes text inside <script> and <style> too (raw() is the way in)", () => {
    expect(renderHtml(<script>{"a < b && c"}</script>)).toBe("<script>a &lt; b &amp;&amp; c</script>");
    expect(renderHtml(<style>{"a > b {}"}</style>)).toBe("<style>a &gt; b {}</style>");
    expect(renderHtml(<script>{raw("if (a < b) go();")}</script>)).toBe("<script>if (a < b) go();</script>");
  });

  it("throws on a child outside the tree's types", () => {
    const date = new Date(0) as unknown as Child;
    expect(() => renderHtml(<p>{date}</p>)).toThrow(/Date/);
    expect(() => renderHtml({ not: "a node" } as unknown as Child)).toThrow(TypeError);
  });
});

describe("renderHtml: raw", () => {
  it("passes raw markup through unescaped", () => {
    expect(renderHtml(<div>{raw("<b>bold</b> &amp; <i>it</i>")}</div>)).toBe(
      "<div><b>bold</b> &amp; <i>it</i></div>",
    );
    expect(renderHtml(raw("<!-- c -->"))).toBe("<!-- c -->");
  });
});

describe("renderHtml: attributes", () => {
  it("escapes attribute values", () => {
    const title = `"quoted" & 'single' <tag>`;
    expect(renderHtml(<a title={title}>x</a>)).toBe(
      '<a title="&quot;quoted&quot; &amp; &#39;single&#39; &lt;tag&gt;">x</a>',
    );
  });

  it("escapes an onclick handler with both kinds of quotes", () => {
    expect(renderHtml(<button onclick={`alert("hi"); return 'no'`}>Go</button>)).toBe(
      '<button onclick="alert(&quot;hi&quot;); return &#39;no&#39;">Go</button>',
    );
  });

  it("cannot break out of a value with a quote", () => {
    const html = renderHtml(<img src={`x" onerror="alert(1)`} />);
    expect(html).toBe('<img src="x&quot; onerror=&quot;alert(1)">');
  });

  it("writes true as a bare name and omits false, null and undefined", () => {
    expect(
      renderHtml(<input checked={true} disabled={false} required={null} readonly={undefined} hidden />),
    ).toBe("<input checked hidden>");
  });

  it("String()s numbers and bigints", () => {
    expect(renderHtml(<td colspan={2} data-id={10n} tabindex={0} />)).toBe(
      '<td colspan="2" data-id="10" tabindex="0"></td>',
    );
  });

  it("keeps HTML's own names: class, for, http-equiv, data-*, aria-*", () => {
    expect(renderHtml(<label class="c" for="f" data-x="1" aria-hidden="true">L</label>)).toBe(
      '<label class="c" for="f" data-x="1" aria-hidden="true">L</label>',
    );
    expect(renderHtml(<meta http-equiv="refresh" content="5" />)).toBe(
      '<meta http-equiv="refresh" content="5">',
    );
  });

  it("writes attributes in the order given", () => {
    expect(renderHtml(<a id="1" href="/x" class="k" />)).toBe('<a id="1" href="/x" class="k"></a>');
  });

  it("throws on an invalid attribute name, naming it", () => {
    for (const name of ["on click", "a\"b", "x>y", "a=b", "a/b", "", "a'b", "é"]) {
      const bad = element("div", { [name]: "v" });
      expect(() => renderHtml(bad)).toThrow(JSON.stringify(name));
    }
  });

  it("throws on an invalid name even when its value would be omitted", () => {
    expect(() => renderHtml(element("div", { "bad name": false }))).toThrow('"bad name"');
  });

  it("keeps rejecting a bad name (only valid names are cached)", () => {
    const bad = element("p", { "x y": 1 });
    expect(() => renderHtml(bad)).toThrow();
    expect(() => renderHtml(bad)).toThrow();
  });

  it("accepts names from the whole allowed set", () => {
    expect(renderHtml(element("svg", { "xlink:href": "#a", "x.y": "1", a_b: "2", "hx-get": "/g" }))).toBe(
      '<svg xlink:href="#a" x.y="1" a_b="2" hx-get="/g"></svg>',
    );
  });
});

describe("renderHtml: tags", () => {
  it("throws on an invalid tag name, naming it", () => {
    for (const tag of ["di v", "", "1a", "a>", "-x", "a/b", "<p"]) {
      expect(() => renderHtml(element(tag))).toThrow(JSON.stringify(tag));
    }
  });

  it("accepts custom elements and namespaced/camelCase tags", () => {
    expect(renderHtml(<my-widget x-y="1" />)).toBe('<my-widget x-y="1"></my-widget>');
    expect(renderHtml(element("clipPath"))).toBe("<clipPath></clipPath>");
  });
});

describe("renderHtml: void elements", () => {
  it("renders every void element without a closing tag", () => {
    const tags = ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"];
    for (const tag of tags) expect(renderHtml(element(tag, { id: "x" }))).toBe(`<${tag} id="x">`);
  });

  it("renders void elements in context", () => {
    expect(renderHtml(<p>a<br />b<img src="i.png" alt="" /></p>)).toBe('<p>a<br>b<img src="i.png" alt=""></p>');
  });

  it("closes elements that merely happen to be empty", () => {
    expect(renderHtml(<div />)).toBe("<div></div>");
    expect(renderHtml(<script src="/a.js" />)).toBe('<script src="/a.js"></script>');
  });

  it("throws when a void element is given children, naming the tag", () => {
    expect(() => renderHtml(<br>text</br>)).toThrow("<br>");
    expect(() => renderHtml(element("img", {}, [null]))).toThrow("<img>");
  });
});

describe("renderHtml: structure", () => {
  function Item(props: { label: string; children?: Child }): Node {
    return <li>{props.label}{props.children}</li>;
  }
  function List(props: { items: readonly string[] }): Node {
    return <ul>{props.items.map((label) => <Item label={label} />)}</ul>;
  }

  it("renders fragments without a wrapper", () => {
    expect(renderHtml(<><b>1</b><i>2</i></>)).toBe("<b>1</b><i>2</i>");
    expect(renderHtml(<div><></></div>)).toBe("<div></div>");
  });

  it("flattens nested arrays", () => {
    const nested: Child = ["a", ["b", [<i>c</i>, null, ["d"]]], 1];
    expect(renderHtml(<p>{nested}</p>)).toBe("<p>ab<i>c</i>d1</p>");
  });

  it("renders nested components with children and lists", () => {
    expect(renderHtml(<div><List items={["x", "<y>"]} /><Item label="z"><em>!</em></Item></div>)).toBe(
      "<div><ul><li>x</li><li>&lt;y&gt;</li></ul><li>z<em>!</em></li></div>",
    );
  });

  it("renders a hand-built tree (as other runtime modules write them)", () => {
    expect(renderHtml(element("p", { class: "a" }, ["x", element("br")]))).toBe('<p class="a">x<br></p>');
  });
});

describe("renderDocument", () => {
  it("prepends the doctype", () => {
    expect(renderDocument(<html lang="en"><body>hi</body></html>)).toBe(
      '<!DOCTYPE html><html lang="en"><body>hi</body></html>',
    );
  });
});

describe("nodes forged from data", () => {
  it("are refused: JSON cannot carry the NODE brand, so parsed input never renders as markup", () => {
    const forged = JSON.parse('{"$$":"raw","html":"<script>alert(1)</script>"}') as Child;
    expect(() => renderHtml(forged)).toThrow(/cannot render/);
    const forgedElement = JSON.parse('{"$$":"element","tag":"script","attrs":{},"children":["x"]}') as Child;
    expect(() => renderHtml(<div>{forgedElement}</div>)).toThrow(/cannot render/);
  });
});
