import { describe, expect, it } from "vitest";
import { Fragment, jsx, jsxDEV, jsxs } from "../../runtime/html/jsx-runtime.js";
import { element, fragment, type Child, type Node } from "../../runtime/html/node.js";
import * as barrel from "../../runtime/html/index.js";
import { renderHtml } from "../../runtime/html/render.js";

describe("jsx", () => {
  it("builds an element: the props as attrs (children never rendered as one), children as an array", () => {
    const node = jsx("a", { href: "/x", children: "go" });
    expect(node).toMatchObject({ $$: "element", tag: "a", children: ["go"] });
    expect(node.$$ === "element" && node.attrs["href"]).toBe("/x");
    expect(renderHtml(node)).toBe('<a href="/x">go</a>');
  });

  it("gives a childless element an empty children array", () => {
    expect(jsx("br", {})).toEqual(element("br", {}, []));
  });

  it("keeps a children array as the list", () => {
    const node = jsxs("p", { children: ["a", "b"] });
    expect(node).toMatchObject({ children: ["a", "b"] });
  });

  it("ignores key (jsx's third argument) and jsxDEV's extra arguments", () => {
    expect(jsx("li", { children: "x" }, "k1")).toEqual(jsx("li", { children: "x" }));
    expect(jsxDEV("li", { children: "x" }, "k1")).toEqual(jsx("li", { children: "x" }));
  });

  it("builds fragments", () => {
    expect(jsx(Fragment, { children: ["a", "b"] })).toEqual(fragment(["a", "b"]));
    expect(<>x</>).toEqual(fragment(["x"]));
    expect(<></>).toEqual(fragment([]));
  });

  it("calls components immediately with their props, children included", () => {
    const seen: unknown[] = [];
    function Box(props: { tone: string; children?: Child }): Node {
      seen.push(props);
      return <div class={props.tone}>{props.children}</div>;
    }
    const tree = <Box tone="warm">hi</Box>;
    expect(seen).toEqual([{ tone: "warm", children: "hi" }]);
    expect(tree).toMatchObject({ $$: "element", tag: "div", attrs: { class: "warm" }, children: ["hi"] });
    expect(renderHtml(tree)).toBe('<div class="warm">hi</div>');
  });

  it("compiles JSX to the same tree as direct calls", () => {
    expect(<p id="a">x<b>y</b></p>).toEqual(
      jsxs("p", { id: "a", children: ["x", jsx("b", { children: "y" })] }),
    );
  });
});

describe("index barrel", () => {
  it("exports the public names only", () => {
    expect(Object.keys(barrel).sort()).toEqual(["Fragment", "escapeHtml", "raw", "renderDocument", "renderHtml"]);
  });
});
