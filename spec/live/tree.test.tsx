import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as jsxRuntime from "../../runtime/html/jsx-runtime.js";
import type { Child } from "../../runtime/html/node.js";
import { raw, renderHtml } from "../../runtime/html/render.js";
import { applyDiff, diffTree, toTree, treeHtml, UNCHANGED, type Node } from "../../runtime/live/tree.js";
import { compiled } from "./compiled.js";

/**
 * fw/live sends a render as a tree of pre-rendered templates and then only the holes that
 * changed (runtime/live/tree.ts). The invariant: applying the diff of two renders to the first
 * tree gives a tree whose HTML is exactly what `renderHtml` writes for the second render. The
 * pages are compiled by fw's JSX pre-renderer (transformer/jsx-templates.ts), as an app's are,
 * so the trees hold real templates with child and attribute holes.
 */

interface State {
  readonly count: number;
  readonly name: string;
  readonly done: boolean;
  readonly items: readonly { readonly id: number; readonly title: string; readonly hot: boolean }[];
  readonly error: string | undefined;
  readonly note: string;
}

const PAGE = compiled(`
  import { raw } from "fw";
  const Badge = (p: any) => <span class={"badge" + (p.hot ? " hot" : "")} data-n={p.n}>{p.children}</span>;
  const Row = (p: any) => <li id={"item-" + p.item.id} class={p.item.hot ? "hot" : undefined}><Badge hot={p.item.hot} n={p.item.id}>{p.item.title}</Badge> <button fw-click="remove" fw-value-id={p.item.id} disabled={p.done}>×</button></li>;
  export const page = (s: any) => (
    <section class="counter" data-count={s.count}>
      <title>Count {s.count}</title>
      <h1>Hello, {s.name}!</h1>
      <p>Count: <b>{s.count}</b> {s.count === 1 ? "time" : "times"}</p>
      <input type="checkbox" checked={s.done} name="done" />
      <input type="text" name="name" value={s.name} required={!s.done} maxlength={20} />
      {s.error === undefined ? null : <p class="error" role="alert">{s.error}</p>}
      {s.items.length === 0 ? <p>No items.</p> : <ul>{s.items.map((item: any) => <Row item={item} done={s.done} />)}</ul>}
      <>{s.items.length} item{s.items.length === 1 ? "" : "s"}</>
      <div id="note">{raw(s.note)}</div>
      <footer><small>fixed footer &amp; more</small></footer>
    </section>
  );
`).page as (state: State) => Child;

const START: State = { count: 0, name: "Ada", done: false, items: [], error: undefined, note: "<i>n</i>" };

/** Checks the invariant for one step and returns the next tree. */
function step(prev: { tree: Node; state: State }, next: State): { tree: Node; state: State } {
  const output = PAGE(next);
  const tree = toTree(output);
  const diff = diffTree(prev.tree, tree);
  const applied = applyDiff(prev.tree, diff);
  expect(treeHtml(applied)).toBe(renderHtml(output));
  expect(treeHtml(tree)).toBe(renderHtml(output));
  // The diff travels as JSON: it must survive the trip (no undefined, no symbols).
  expect(treeHtml(applyDiff(prev.tree, JSON.parse(JSON.stringify(diff)) as Node))).toBe(renderHtml(output));
  return { tree: applied, state: next };
}

const item = fc.record({ id: fc.nat(1000), title: fc.string({ maxLength: 12 }), hot: fc.boolean() });
const change: fc.Arbitrary<(s: State) => State> = fc.oneof(
  fc.integer({ min: -3, max: 3 }).map((by) => (s: State) => ({ ...s, count: s.count + by })),
  fc.string({ maxLength: 10 }).map((name) => (s: State) => ({ ...s, name })),
  fc.constant((s: State) => ({ ...s, done: !s.done })),
  item.map((added) => (s: State) => ({ ...s, items: [...s.items, added] })),
  fc.nat(5).map((at) => (s: State) => ({ ...s, items: s.items.filter((_, i) => i !== at % Math.max(1, s.items.length)) })),
  fc.nat(5).map((at) => (s: State) => ({ ...s, items: s.items.map((it, i) => (i === at % Math.max(1, s.items.length) ? { ...it, hot: !it.hot, title: it.title + "!" } : it)) })),
  fc.option(fc.string({ maxLength: 10 }), { nil: undefined }).map((error) => (s: State) => ({ ...s, error })),
  fc.constantFrom("<i>n</i>", "<b>bold</b> & co", "").map((note) => (s: State) => ({ ...s, note })),
  fc.constant((s: State) => s),
);

describe("fw/live: render trees and their diffs (runtime/live/tree.ts)", () => {
  it("a tree's HTML is the render's HTML, title, attribute holes, components, lists and raw markup included", () => {
    const state: State = { ...START, count: 2, error: "Too many", items: [{ id: 1, title: "<one>", hot: true }, { id: 2, title: 'two "2"', hot: false }] };
    const output = PAGE(state);
    const tree = toTree(output);
    expect(treeHtml(tree)).toBe(renderHtml(output));
    expect(renderHtml(output)).toContain('<li id="item-1" class="hot">');
    expect(renderHtml(output)).toContain("<title>Count 2</title>");
  });

  it("applying the diff of any sequence of state changes gives the next render's HTML", () => {
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 25 }), (changes) => {
        let at = { tree: toTree(PAGE(START)), state: START };
        for (const f of changes) at = step(at, f(at.state));
      }),
      { numRuns: 200 },
    );
  });

  it("lists that grow and shrink, conditionals that appear and vanish, attributes that come and go", () => {
    let at = { tree: toTree(PAGE(START)), state: START };
    const a = { id: 1, title: "a", hot: false };
    const b = { id: 2, title: "b", hot: true };
    for (const next of [
      { ...START, items: [a] },
      { ...START, items: [a, b] },
      { ...START, items: [b] },
      { ...START, items: [] },
      { ...START, error: "Name is required." },
      { ...START, error: undefined, done: true },
      { ...START, done: false, items: [a, b] },
      { ...START, done: true, items: [a, b] },
    ]) at = step(at, next);
  });

  it("a one-hole change travels as that hole only, a small part of the page", () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ id: i, title: `Item number ${i} with some text`, hot: i % 3 === 0 }));
    const before = { ...START, items };
    const prev = toTree(PAGE(before));
    const next = toTree(PAGE({ ...before, name: "Grace" }));
    const diff = diffTree(prev, next);
    const sent = JSON.stringify(diff);
    const page = renderHtml(PAGE({ ...before, name: "Grace" }));
    expect(sent).toContain("Grace");
    expect(sent.length).toBeLessThan(page.length / 20);
    expect(treeHtml(applyDiff(prev, diff))).toBe(page);
  });

  it("an unchanged render diffs to {u:{}}, applied as nothing", () => {
    const prev = toTree(PAGE(START));
    const diff = diffTree(prev, toTree(PAGE({ ...START })));
    expect(diff).toEqual(UNCHANGED);
    expect(applyDiff(prev, diff)).toBe(prev);
  });

  it("a tree's shapes are named once each, by a stable id per shape", () => {
    const seen: number[] = [];
    toTree(PAGE({ ...START, items: [{ id: 1, title: "a", hot: false }] }), (id) => seen.push(id));
    const again: number[] = [];
    toTree(PAGE({ ...START, items: [{ id: 1, title: "a", hot: false }] }), (id) => again.push(id));
    expect(again).toEqual(seen);
    expect(new Set(seen).size).toBeGreaterThan(3);
  });

  it("runtime JSX elements, text and numbers become their HTML; a fragment a list", () => {
    const built = jsxRuntime.jsx("p", { class: "x", children: ["a < b", 3] });
    expect(toTree(built)).toBe('<p class="x">a &lt; b3</p>');
    expect(toTree(["<", 1n, null, true])).toEqual(["&lt;", "1", "", ""]);
    expect(toTree(jsxRuntime.Fragment({ children: ["x", raw("<hr>")] }))).toEqual(["x", "<hr>"]);
  });

  it("refuses what the renderer refuses", () => {
    expect(() => toTree({ $$: "raw", html: "<script>" } as unknown as Child)).toThrow(/cannot render/);
  });
});
