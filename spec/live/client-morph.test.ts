import { readFileSync } from "node:fs";
import fc from "fast-check";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { CHROMIUM_ARGS } from "../support/chromium.js";
import { applyDiff, diffTree, treeHtml, type Node } from "../../runtime/live/tree.js";

// fw/live's browser client (runtime/live/client/live.js) in headless Chromium, without a server:
// the page sets `window.__fwLiveTest` before the script runs, so the client connects nothing and
// hands out its tree and morph functions; `attach(root, false)` takes server messages by hand.
// The page's code runs as strings (this project's TypeScript has no DOM types).
const found = inject("chromium");
const CHROMIUM = "path" in found ? found.path : undefined;
const CLIENT = readFileSync(new URL("../../runtime/live/client/live.js", import.meta.url), "utf8");

/** In the page: the root, its controller, and a check against markup set directly. */
const HARNESS = `
window.__fwLiveTest = {};
`;
const AFTER = `
window.T = {
  root: document.getElementById("root"),
  send(msg) { this.ctl.message(msg); },
  /** Whether the root's DOM equals the one the browser builds from this markup (attributes in any order). */
  same(markup) {
    const ref = this.root.cloneNode(false);
    ref.innerHTML = markup;
    return this.root.isEqualNode(ref) ? "same" : this.root.innerHTML;
  },
};
T.ctl = __fwLiveTest.attach(T.root, false);
`;

let browser: Browser | undefined;
let page: Page;

beforeAll(async () => {
  if (CHROMIUM !== undefined) browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
afterAll(async () => browser?.close());

beforeEach(async () => {
  if (browser === undefined) return;
  page = await browser.newPage();
  await page.setContent(`<!doctype html><main><div id="root" data-fw-live="/fw/live/t" data-fw-csrf="tok"></div></main>`);
  await page.addScriptTag({ content: HARNESS });
  await page.addScriptTag({ content: CLIENT });
  await page.addScriptTag({ content: AFTER });
  return () => page.close();
});

const run = <T>(js: string): Promise<T> => page.evaluate(js) as Promise<T>;
const send = (msg: unknown): Promise<void> => run(`T.send(${JSON.stringify(msg)})`);
const same = (markup: string): Promise<string> => run(`T.same(${JSON.stringify(markup)})`);

// Two template shapes as the server would send them: a section with a count, an attribute hole
// and a list; a keyed list item.
const SECTION = ["<section><p>Count: ", '</p><ul class="', '">', "</ul></section>"];
const ITEM = ['<li id="item-', '">', "</li>"];
const item = (id: number, text: string) => ({ s: "2", d: [String(id), text] });

describe.skipIf(CHROMIUM === undefined)("fw/live's client: tree and morph (Chromium)", () => {
  it("applying a sequence of renders and patches yields the DOM the final HTML makes", async () => {
    await send({ t: "r", n: 0, s: { "1": SECTION, "2": ITEM }, d: { s: "1", d: ["0", "a", [item(1, "one"), item(2, "two")]] } });
    expect(await same('<section><p>Count: 0</p><ul class="a"><li id="item-1">one</li><li id="item-2">two</li></ul></section>')).toBe("same");
    await send({ t: "r", n: 1, d: { u: { "0": "1", "2": [item(1, "one"), item(2, "two"), item(3, "<b>three</b>")] } } });
    await send({ t: "r", n: 2, d: { u: { "1": "b", "2": [item(3, "<b>three</b>"), item(1, "uno")] } } });
    await send({ t: "r", n: 3, d: { u: { "0": "<em>3</em>" } } });
    expect(await same('<section><p>Count: <em>3</em></p><ul class="b"><li id="item-3"><b>three</b></li><li id="item-1">uno</li></ul></section>')).toBe("same");
    // A later first render (a reconnect's mount) replaces the tree whole.
    await send({ t: "r", n: 0, s: { "3": ["<div>", "</div>"] }, d: [{ s: "3", d: ["fresh"] }, "<hr>"] });
    expect(await same("<div>fresh</div><hr>")).toBe("same");
  });

  it("morphing through any sequence of markup gives the DOM that markup makes, fields showing their value", async () => {
    const attrs = fc.record(
      { id: fc.constantFrom("a", "b", "c"), class: fc.constantFrom("x", "y"), title: fc.constantFrom("t", "u"), "data-k": fc.constantFrom("1", "2"), hidden: fc.constant("") },
      { requiredKeys: [] },
    );
    const written = (a: Record<string, string>) => Object.entries(a).map(([k, v]) => (v === "" ? ` ${k}` : ` ${k}="${v}"`)).join("");
    const { markup } = fc.letrec<{ node: string; markup: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.constantFrom("a", "b", " ", "&amp;"),
        fc.tuple(fc.constantFrom("value", "checked"), fc.constantFrom("v", "w"), attrs).map(([kind, value, a]) => `<input${written(a)}${kind === "checked" ? ' type="checkbox" checked' : ` value="${value}"`}>`),
        fc.tuple(attrs, fc.constantFrom("", "x", "y z")).map(([a, text]) => `<textarea${written(a)}>${text}</textarea>`),
        fc.tuple(attrs, fc.array(fc.tuple(fc.constantFrom("a", "b", "c"), fc.boolean()), { maxLength: 3 })).map(
          ([a, options]) => `<select${written(a)}>${options.map(([o, selected]) => `<option${selected ? " selected" : ""}>${o}</option>`).join("")}</select>`,
        ),
        fc.tuple(fc.constantFrom("div", "section", "span", "b"), attrs, tie("markup")).map(([tag, a, inner]) => `<${tag}${written(a)}>${inner}</${tag}>`),
      ),
      markup: fc.array(tie("node"), { maxLength: 5 }).map((nodes) => nodes.join("")),
    }));
    await fc.assert(
      fc.asyncProperty(fc.array(markup, { minLength: 1, maxLength: 5 }), async (sequence) => {
        const failed = await run<string | null>(`(() => {
          T.root.replaceChildren();
          for (const markup of ${JSON.stringify(sequence)}) {
            T.send({ t: "r", n: 0, d: markup });
            const same = T.same(markup);
            if (same !== "same") return markup + " gave " + same;
            for (const input of T.root.querySelectorAll("input")) {
              if (input.value !== (input.getAttribute("value") ?? (input.type === "checkbox" ? "on" : "")) || input.checked !== input.hasAttribute("checked")) return markup + ": an input shows " + input.value + "/" + input.checked;
            }
            for (const area of T.root.querySelectorAll("textarea")) if (area.value !== area.defaultValue) return markup + ": a textarea shows " + area.value;
            for (const select of T.root.querySelectorAll("select")) {
              const chosen = [...select.options].findLastIndex((o) => o.hasAttribute("selected"));
              if (select.selectedIndex !== (select.options.length === 0 ? -1 : Math.max(0, chosen))) return markup + ": a select shows option " + select.selectedIndex;
            }
          }
          return null;
        })()`);
        expect(failed).toBeNull();
      }),
      { numRuns: 150 },
    );
  });

  it("the tree's HTML interleaves statics and holes; a patch touches only its holes", async () => {
    const statics = { "1": SECTION, "2": ITEM };
    const tree = { s: "1", d: ["0", "a", item(1, "one")] };
    const html = await run<string>(`__fwLiveTest.html(__fwLiveTest.apply(${JSON.stringify(tree)}, { u: { "2": { u: { "1": "ONE" } } } }), ${JSON.stringify(statics)})`);
    expect(html).toBe('<section><p>Count: 0</p><ul class="a"><li id="item-1">ONE</li></ul></section>');
    const error = await run<string>(`(() => { try { __fwLiveTest.apply("text", { u: { "0": "x" } }); return "applied"; } catch (e) { return e.message; } })()`);
    expect(error).toContain("no holes");
  });

  it("applies the server's list diffs (items that changed, new ones whole, a new length) as the server's applyDiff does", async () => {
    const statics = { "7": ["<li>", "</li>"] };
    const li = (text: string): Node => ({ s: 7, d: [text] });
    const lists: Node[][] = [[], [li("a")], [li("a"), li("b"), li("c")], [li("a"), li("B"), li("c")], [li("a")], [li("x"), li("y")], ["text", li("y"), [li("z")]], []];
    let before: Node = lists[0] as Node;
    let client: unknown = before;
    for (const list of lists.slice(1)) {
      const diff = JSON.parse(JSON.stringify(diffTree(before, list)));
      const expected = treeHtml(applyDiff(before, diff), new Map([[7, ["<li>", "</li>"]]]));
      expect(expected).toBe(treeHtml(list, new Map([[7, ["<li>", "</li>"]]])));
      client = await run<unknown>(`__fwLiveTest.apply(${JSON.stringify(client)}, ${JSON.stringify(diff)})`);
      expect(await run<string>(`__fwLiveTest.html(${JSON.stringify(client)}, ${JSON.stringify(statics)})`)).toBe(expected);
      before = list;
    }
    // One item changed in a long list: the diff names that item alone.
    const long = Array.from({ length: 50 }, (_, i) => li(`row ${i}`));
    const toggled = long.map((item, i) => (i === 17 ? li("row 17 done") : item));
    expect(diffTree(long, toggled)).toEqual({ u: { "17": { u: { "0": "row 17 done" } } } });
  });

  it("keeps an element (the same DOM node) where tag and id match, and where an unkeyed one of the same tag stands", async () => {
    await send({ t: "r", n: 0, s: { "1": SECTION, "2": ITEM }, d: { s: "1", d: ["0", "a", [item(1, "one"), item(2, "two"), item(3, "three")]] } });
    await run(`T.kept = { p: T.root.querySelector("p"), ul: T.root.querySelector("ul"), one: document.getElementById("item-1"), three: document.getElementById("item-3") }`);
    await send({ t: "r", n: 1, d: { u: { "0": "9", "2": [item(3, "three!"), item(4, "four"), item(1, "one")] } } });
    expect(await same('<section><p>Count: 9</p><ul class="a"><li id="item-3">three!</li><li id="item-4">four</li><li id="item-1">one</li></ul></section>')).toBe("same");
    expect(
      await run<boolean[]>(`[T.kept.p === T.root.querySelector("p"), T.kept.ul === T.root.querySelector("ul"), T.kept.one === document.getElementById("item-1"), T.kept.three === document.getElementById("item-3")]`),
    ).toEqual([true, true, true, true]);
    expect(await run<boolean>(`document.getElementById("item-2") === null`)).toBe(true);
  });

  it("lists grow and shrink, unkeyed too", async () => {
    await send({ t: "r", n: 0, d: "<ol><li>a</li></ol>" });
    for (const items of [["a", "b", "c", "d"], ["b"], [], ["x", "y"], ["x"]]) {
      const markup = `<ol>${items.map((i) => `<li>${i}</li>`).join("")}</ol>`;
      await send({ t: "r", n: 0, d: markup });
      expect(await same(markup)).toBe("same");
    }
    // An element inserted before others of another kind leaves them in place.
    await run(`T.kept = T.root.querySelector("ol")`);
    await send({ t: "r", n: 0, d: "<h2>Title</h2><ol><li>x</li></ol>" });
    expect(await run<boolean>(`T.kept === T.root.querySelector("ol")`)).toBe(true);
    expect(await same("<h2>Title</h2><ol><li>x</li></ol>")).toBe("same");
  });

  it("removes attributes the new markup no longer has and adds the new ones", async () => {
    await send({ t: "r", n: 0, d: '<button class="x" disabled data-a="1" title="t">Go</button><input name="n" value="old" required>' });
    await send({ t: "r", n: 0, d: '<button data-b="2" title="u">Go</button><input name="n" value="new">' });
    expect(await same('<button data-b="2" title="u">Go</button><input name="n" value="new">')).toBe("same");
    expect(await run<string[]>(`[...T.root.querySelector("button").attributes].map((a) => a.name).sort()`)).toEqual(["data-b", "title"]);
    expect(await run<string>(`T.root.querySelector("input").value`)).toBe("new");
  });

  it("the focused field keeps its value, caret and focus while a render changes its siblings", async () => {
    const form = (error: string, cls: string) =>
      `<form fw-change="check"><label for="t">Title</label><input id="t" name="title" value="" class="${cls}"><p class="err">${error}</p><input name="other" value="server"><textarea name="body"></textarea></form>`;
    await send({ t: "r", n: 0, d: form("", "") });
    await page.click("#t");
    await page.keyboard.type("hello world");
    await run(`document.getElementById("t").setSelectionRange(2, 5)`);
    await run(`T.input = document.getElementById("t")`);
    await page.fill("textarea", "typed elsewhere");
    await page.focus("#t");
    await run(`document.getElementById("t").setSelectionRange(2, 5)`);
    await send({ t: "r", n: 0, d: form("Title is too long", "invalid") });
    expect(
      await run<unknown[]>(`(() => { const i = document.getElementById("t"); return [i === T.input, document.activeElement === i, i.value, i.selectionStart, i.selectionEnd, i.className]; })()`),
    ).toEqual([true, true, "hello world", 2, 5, "invalid"]);
    expect(await run<string>(`T.root.querySelector(".err").textContent`)).toBe("Title is too long");
    // Fields the user is not in show what the server rendered.
    expect(await run<string>(`T.root.querySelector("textarea").value`)).toBe("");
    // The caret stays put as the user goes on typing.
    await page.keyboard.type("XY");
    expect(await run<string>(`document.getElementById("t").value`)).toBe("heXY world");
  });

  it("a focused field whose element had to be replaced is found again by name, with its text and caret", async () => {
    await send({ t: "r", n: 0, d: '<div><input name="q" value=""></div>' });
    await page.click("input[name=q]");
    await page.keyboard.type("abc");
    await send({ t: "r", n: 0, d: '<section><input name="q" value=""></section>' });
    expect(await run<unknown[]>(`(() => { const i = T.root.querySelector("input"); return [document.activeElement === i, i.value, i.selectionStart]; })()`)).toEqual([true, "abc", 3]);
  });

  it("keeps an element's scroll position across renders", async () => {
    const tall = (note: string) => `<p>${note}</p><div id="box" style="height:50px;overflow:auto"><div style="height:500px">tall</div></div>`;
    await send({ t: "r", n: 0, d: tall("a") });
    await run(`document.getElementById("box").scrollTop = 120`);
    await send({ t: "r", n: 0, d: tall("b") });
    expect(await run<number>(`document.getElementById("box").scrollTop`)).toBe(120);
  });

  it("a <title> in a render becomes the document's title, as the layout lifts it on the first GET", async () => {
    await send({ t: "r", n: 0, d: "<section><svg><title>a circle</title></svg><title>Count 1</title><p>1</p></section>" });
    expect(await run<string>(`document.title`)).toBe("Count 1");
    expect(await same("<section><svg><title>a circle</title></svg><p>1</p></section>")).toBe("same");
  });

  it("a render's <title> keeps the layout's frame: it takes the place of the page's own title (data-fw-title) in the document's (issue 39)", async () => {
    await run(`(() => { document.title = "Posts · fw example"; T.root.setAttribute("data-fw-title", "Posts"); })()`);
    await send({ t: "r", n: 0, d: "<title>Posts</title><p>list</p>" });
    expect(await run<string>(`document.title`)).toBe("Posts · fw example");
    await send({ t: "r", n: 0, d: "<title>Drafts</title><p>list</p>" });
    expect(await run<string>(`document.title`)).toBe("Drafts · fw example");
    await send({ t: "r", n: 0, d: "<title>Posts</title><p>list</p>" });
    expect(await run<string>(`document.title`)).toBe("Posts · fw example");
  });

  it("shows an err message in a banner above the root; the next render clears it", async () => {
    await send({ t: "r", n: 0, d: "<p>x</p>" });
    await send({ t: "err", n: 1, m: "no event named nope on this page" });
    expect(
      await run<unknown[]>(`(() => { const b = T.root.previousElementSibling; return [b.className, b.getAttribute("role"), b.textContent]; })()`),
    ).toEqual(["fw-live-error", "alert", "no event named nope on this page"]);
    await send({ t: "r", n: 2, d: { u: {} } }); // "nothing changed" still answers the event
    expect(await same("<p>x</p>")).toBe("same");
    expect(await run<number>(`document.querySelectorAll(".fw-live-error").length`)).toBe(0);
  });
});
