import { describe, expect, expectTypeOf, it } from "vitest";
import type { Child, Node } from "../../runtime/html/node.js";
import { Fragment, jsx, type JSX } from "../../runtime/html/jsx-runtime.js";
import { renderHtml } from "../../runtime/html/render.js";

interface CardProps {
  readonly heading: string;
  readonly count?: number;
  readonly children?: Child;
}

function Card(props: CardProps): Node {
  return <section><h2>{props.heading}</h2>{props.count}{props.children}</section>;
}

describe("JSX types", () => {
  it("type-checks a component with typed props and evaluates to a Node", () => {
    const card = <Card heading="Hi" count={2}><p>body</p></Card>;
    expectTypeOf(card).toEqualTypeOf<JSX.Element>();
    expectTypeOf<JSX.Element>().toEqualTypeOf<Node>();
    expectTypeOf(Card).parameter(0).toEqualTypeOf<CardProps>();
    expect(renderHtml(card)).toBe("<section><h2>Hi</h2>2<p>body</p></section>");
  });

  it("types the runtime entry points", () => {
    expectTypeOf(jsx).returns.toEqualTypeOf<Node>();
    expectTypeOf(Fragment).parameter(0).toEqualTypeOf<{ readonly children?: Child }>();
    expectTypeOf<JSX.ElementChildrenAttribute>().toEqualTypeOf<{ children: {} }>();
  });

  it("types attributes loosely but usefully", () => {
    expectTypeOf<JSX.IntrinsicElements["div"]["class"]>().toEqualTypeOf<
      string | number | bigint | boolean | null | undefined
    >();
    expectTypeOf<JSX.IntrinsicElements["div"]["children"]>().toEqualTypeOf<Child>();
  });

  it("rejects misuse at compile time (checked by tsc, never run)", () => {
    const compileOnly = (): Node[] => [
      // @ts-expect-error a required prop is missing
      <Card />,
      // @ts-expect-error a prop of the wrong type
      <Card heading={1} />,
      // @ts-expect-error a prop the component does not take
      <Card heading="x" extra />,
      // @ts-expect-error a node is not an attribute value
      <div class={<b />} />,
      // @ts-expect-error a function is not an attribute value
      <button onclick={() => undefined} />,
      // @ts-expect-error React's renamed attributes are not fw's
      <label className="a" htmlFor="b" />,
      // @ts-expect-error an object is not a child
      <p>{{ a: 1 }}</p>,
    ];
    expectTypeOf(compileOnly).returns.toEqualTypeOf<Node[]>();
  });

  it("accepts HTML's own attribute names and any lowercase tag", () => {
    const page = (
      <html lang="en">
        <meta http-equiv="refresh" content={5} />
        <label for="x" class="c" data-id={1} aria-label="l" hidden />
        <my-element some-attr="v" />
        <svg viewBox="0 0 1 1"><path d="M0 0" stroke-width={2} /></svg>
      </html>
    );
    expectTypeOf(page).toEqualTypeOf<Node>();
  });
});
