import { element } from "../../runtime/html/node.js";
import { describe, expect, it } from "vitest";
import type { Child, Element } from "../../runtime/html/node.js";
import { isDocument, liftTitle, raw, renderHtml, textOf } from "../../runtime/html/render.js";

describe("liftTitle", () => {
  it("lifts the first title in document order, leaving later ones", () => {
    const page = (
      <html>
        <head><title>First</title></head>
        <body><title>Second</title></body>
      </html>
    );
    const { title, content } = liftTitle(page);
    expect(title).toBe("First");
    expect(renderHtml(content)).toBe("<html><head></head><body><title>Second</title></body></html>");
  });

  it("finds a title nested in head and keeps the rest of the tree intact", () => {
    const sidebar = <aside>side</aside>;
    const meta = <meta charset="utf-8" />;
    const page = (
      <div>
        <head>{meta}<title>Inbox</title><link rel="icon" href="/i.png" /></head>
        {sidebar}
      </div>
    ) as Element;
    const { title, content } = liftTitle(page);
    expect(title).toBe("Inbox");
    expect(renderHtml(content)).toBe(
      '<div><head><meta charset="utf-8"><link rel="icon" href="/i.png"></head><aside>side</aside></div>',
    );
    // Untouched subtrees are shared, the path to the title is copied, the input is unchanged.
    const root = content as Element;
    expect(root).not.toBe(page);
    expect(root.attrs).toBe(page.attrs);
    expect(root.children[1]).toBe(sidebar);
    expect((root.children[0] as Element).children[0]).toBe(meta);
    expect(renderHtml(page)).toContain("<title>Inbox</title>");
  });

  it("returns the same object and no title when there is none", () => {
    const page = <main><h1>Hi</h1></main>;
    const lifted = liftTitle(page);
    expect(lifted.title).toBeUndefined();
    expect(lifted.content).toBe(page);
    expect(liftTitle(null)).toEqual({ title: undefined, content: null });
    expect(liftTitle("text").content).toBe("text");
  });

  it("returns the title text unescaped, so rendering it again round-trips", () => {
    const page = <><title>Tom &amp; Jerry's "show" &lt;3</title><p>body</p></>;
    const { title, content } = liftTitle(page);
    expect(title).toBe(`Tom & Jerry's "show" <3`);
    expect(renderHtml(<title>{title}</title>)).toBe("<title>Tom &amp; Jerry&#39;s &quot;show&quot; &lt;3</title>");
    expect(renderHtml(content)).toBe("<p>body</p>");
  });

  it("concatenates the text of all the title's descendants; raw contributes its markup", () => {
    const name = "Ada";
    const { title } = liftTitle(<title>{name} – <b>{3}</b> items {raw("&copy;")}{null}</title>);
    expect(title).toBe("Ada – 3 items &copy;");
  });

  it("lifts a root title to an empty tree", () => {
    expect(liftTitle(<title>Only</title>)).toEqual({ title: "Only", content: null });
  });

  it("looks through fragments and arrays", () => {
    const list: Child = [null, <>{[<p>a</p>, <title>T</title>]}</>, <p>b</p>];
    const { title, content } = liftTitle(list);
    expect(title).toBe("T");
    expect(renderHtml(content)).toBe("<p>a</p><p>b</p>");
    expect((list as Child[]).length).toBe(3);
  });

  it("skips SVG titles (tooltips, not the document's)", () => {
    const page = <body><svg><title>icon</title></svg><title>Real</title></body>;
    const { title, content } = liftTitle(page);
    expect(title).toBe("Real");
    expect(renderHtml(content)).toBe("<body><svg><title>icon</title></svg></body>");
  });

  it("leaves raw markup alone", () => {
    const page = <div>{raw("<title>not lifted</title>")}</div>;
    expect(liftTitle(page).content).toBe(page);
  });
});

describe("textOf", () => {
  it("collects text unescaped, numbers as text, nothing for null and booleans", () => {
    expect(textOf(<p>a &lt; b {1} {false} <i>{"c"}</i></p>)).toBe("a < b 1  c");
  });
});

describe("isDocument", () => {
  const doc = <html><body /></html>;

  it("is true for an <html> root", () => {
    expect(isDocument(doc)).toBe(true);
  });

  it("looks through fragments and arrays with only blank text, null and booleans beside it", () => {
    expect(isDocument(<>{"\n  "}{doc}{null}</>)).toBe(true);
    expect(isDocument([null, false, undefined, true, " \t\n", [<>{doc}</>]])).toBe(true);
  });

  it("accepts a hand-built HTML tag in any case", () => {
    expect(isDocument(element("HTML", {}, []))).toBe(true);
  });

  it("is false for other roots", () => {
    expect(isDocument(<div />)).toBe(false);
    expect(isDocument(<body><html /></body>)).toBe(false);
    expect(isDocument(raw("<html></html>"))).toBe(false);
    expect(isDocument("<html></html>")).toBe(false);
    expect(isDocument(null)).toBe(false);
    expect(isDocument([])).toBe(false);
    expect(isDocument(<></>)).toBe(false);
    expect(isDocument(1)).toBe(false);
  });

  it("is false when <html> has company", () => {
    expect(isDocument([doc, doc])).toBe(false);
    expect(isDocument(<>{doc}<p /></>)).toBe(false);
    expect(isDocument(<>text{doc}</>)).toBe(false);
    expect(isDocument([doc, 0])).toBe(false);
    expect(isDocument([doc, raw("<!-- x -->")])).toBe(false);
    expect(isDocument(["\u00a0", doc])).toBe(false);
  });
});
