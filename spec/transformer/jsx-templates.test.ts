import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import fc from "fast-check";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as jsxRuntime from "../../runtime/html/jsx-runtime.js";
import type { Child } from "../../runtime/html/node.js";
import { isDocument, liftTitle, raw, renderHtml, textOf } from "../../runtime/html/render.js";
import { templatesTransformer } from "../../transformer/jsx-templates.js";

/**
 * The JSX pre-renderer (transformer/jsx-templates.ts) is an optimisation only: a module compiled
 * with it must build nodes that render, lift their title, read as a document and give their
 * text exactly as the same module compiled by TypeScript alone. Each source below is compiled
 * both ways (to CommonJS, evaluated against fw's JSX runtime) and the two are compared.
 */

interface Compiled {
  readonly js: string;
  readonly exports: Record<string, unknown>;
}

function compile(source: string, templates: boolean): Compiled {
  const out = ts.transpileModule(source, {
    compilerOptions: { jsx: ts.JsxEmit.ReactJSX, jsxImportSource: "fw", module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    fileName: "page.tsx",
    ...(templates ? { transformers: { before: [templatesTransformer(ts)] } } : {}),
  });
  const exports: Record<string, unknown> = {};
  const modules: Record<string, unknown> = { "fw/jsx-runtime": jsxRuntime, fw: { raw } };
  const load = (name: string): unknown => {
    if (!(name in modules)) throw new Error(`the test module imports ${name}`);
    return modules[name];
  };
  // The compiled module, run as CommonJS against the runtime this test renders with.
  new Function("require", "exports", out.outputText)(load, exports);
  return { js: out.outputText, exports };
}

/** Everything the server does with a page's tree, as comparable text. */
function observe(build: () => unknown): Record<string, unknown> {
  let tree: Child;
  try {
    tree = build() as Child;
  } catch (thrown) {
    return { built: `threw ${String(thrown)}` };
  }
  const attempt = (f: () => unknown): unknown => {
    try {
      return f();
    } catch (thrown) {
      return `threw ${String(thrown)}`;
    }
  };
  return {
    html: attempt(() => renderHtml(tree)),
    document: attempt(() => isDocument(tree)),
    lifted: attempt(() => {
      const { title, content } = liftTitle(tree);
      return { title, content: renderHtml(content) };
    }),
    text: attempt(() => textOf(tree)),
  };
}

/** The module's `page(v)` both ways, observed alike; returns the pre-rendered module's JS. */
function expectSame(source: string, v: unknown = VALUES): string {
  const plain = compile(source, false);
  const pre = compile(source, true);
  const page = (m: Compiled) => () => (m.exports.page as (v: unknown) => unknown)(v);
  expect(observe(page(pre)), pre.js).toEqual(observe(page(plain)));
  return pre.js;
}

const VALUES = {
  s: `<script>"x" & 'y'</script>`,
  n: 42,
  big: 10n,
  obj: { toString: () => "obj<>" },
  list: ["a", "<b>", 3],
  props: { id: "p1", class: "spread" },
  no: null,
  yes: true,
};

const HELPERS = `
import { raw } from "fw";
const Box = (p: any) => <section class="box">{p.children}</section>;
const Pass = (p: any) => <>{p.children}</>;
`;

describe("JSX pre-rendering (transformer/jsx-templates.ts)", () => {
  it("pre-renders HTML elements: fixed markup once per module, values in holes", () => {
    const js = expectSame(`export const page = (v: any) => <p class="meta">By {v.s} · <b>{v.n}</b></p>;`);
    expect(js).toContain(`jsxShape(["<p class=\\"meta\\">By `);
    expect(js).toMatch(/jsxTemplate\(_fwShape_\d+, \[v\.s, v\.n\]\)/);
    expect(js).not.toContain("jsx)(\"p\"");
  });

  it("builds an element without values once, at module load", () => {
    const pre = compile(`export const page = () => <footer><p>© 2025 &amp; friends</p></footer>;`, true);
    const page = pre.exports.page as () => unknown;
    expect(page()).toBe(page());
    expect(renderHtml(page() as Child)).toBe("<footer><p>© 2025 &amp; friends</p></footer>");
  });

  it("trims JSX text and decodes character references as TypeScript does", () => {
    expectSame(`export const page = (v: any) => <div>  one &amp; two &copy;
        three   &#65;&#x42; &nbsp;x
      {v.n}  tail  <span>
      </span>&lt;tag&gt; &quot;q&quot; &apos;a&apos;</div>;`);
  });

  it("renders attributes alike: literals, bare names, and values of every kind", () => {
    expectSame(
      `export const page = (v: any) => <form method="post" data-x="a &amp; b &lt;" novalidate>` +
        `<input value={v.s} disabled={false} checked={v.yes} n={v.n} b={v.big} o={v.obj} x={v.no} u={undefined} key={v.n} />` +
        `<a href={"/t/" + v.n} title='sq "dq"'>go</a><my-el xlink:href="#a" data-1="d" /></form>;`,
    );
  });

  it("leaves the title to the runtime so the layout still lifts it, from any depth", () => {
    const source = `${HELPERS}
      export const page = (v: any) => <><main><header><h1>Hi</h1><title>{v.s} &amp; co</title></header></main><p>after</p></>;`;
    const js = expectSame(source);
    expect(js).toMatch(/jsxs?\)\("title"/);
    const { title, content } = liftTitle((compile(source, true).exports.page as (v: unknown) => Child)(VALUES));
    expect(title).toBe(`${VALUES.s} & co`);
    expect(renderHtml(content)).toBe("<main><header><h1>Hi</h1></header></main><p>after</p>");
  });

  it("keeps a page's own <html> a whole document", () => {
    expectSame(`export const page = (v: any) => <html lang="en"><head><title>T</title></head><body>{v.s}</body></html>;`);
    expectSame(`export const page = (v: any) => <>{"  "}<HTML><body /></HTML></>;`);
  });

  it("leaves svg, math and template with values to the runtime: their titles are not the page's", () => {
    expectSame(`export const page = (v: any) => <div><svg><title>{v.s}</title><path d="M0" /></svg><math><mi>x</mi></math><title>Page</title></div>;`);
    expectSame(`export const page = (v: any) => <div><svg viewBox="0 0 1 1"><title>icon</title></svg><title>Page</title></div>;`);
  });

  it("passes pre-rendered children to components and spread elements", () => {
    expectSame(`${HELPERS}
      export const page = (v: any) => <Box><p>in a box {v.s}</p><Pass><i>passed</i>{v.list}</Pass><div {...v.props}><b>spread</b></div></Box>;`);
  });

  it("writes the same module whether or not TypeScript says which subtrees hold JSX", () => {
    // The pass skips subtrees TypeScript's transformFlags mark as JSX-free; without the flags it walks them all.
    const source = `${HELPERS}
      type Row = { id: number; title: string };
      function rows(list: Row[]) { const n = list.length; return list.map((r) => <li id={String(r.id)}>{r.title}</li>); }
      export class Page { render(v: any) { return v.ok ? <Box><ul>{rows(v.list)}</ul></Box> : [<p>none</p>, <b>{v.s}</b>]; } }
      export const page = (v: any) => new Page().render(v);`;
    // Each TypeScript instance counts the nodes the pass walks into (its visitEachChild calls).
    const counting = (hideFlags: boolean) => {
      const counted = { walks: 0 };
      const api = new Proxy(ts, {
        get: (target, name) => {
          if (name === "TransformFlags" && hideFlags) return undefined;
          if (name === "visitEachChild") return (...args: Parameters<typeof ts.visitEachChild>) => (counted.walks++, ts.visitEachChild(...args));
          return Reflect.get(target, name);
        },
      });
      return { api, counted };
    };
    const emitted = (tsApi: typeof ts) =>
      ts.transpileModule(source, {
        compilerOptions: { jsx: ts.JsxEmit.ReactJSX, jsxImportSource: "fw", module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
        fileName: "page.tsx",
        transformers: { before: [templatesTransformer(tsApi)] },
      }).outputText;
    const flagged = counting(false);
    const unflagged = counting(true);
    const js = emitted(flagged.api);
    expect(js).toBe(emitted(unflagged.api));
    // With the flags, the JSX-free subtrees (the type, the imports, `n`) are not walked.
    expect(flagged.counted.walks).toBeLessThan(unflagged.counted.walks);
    // Box's <section>, <li>, <ul>, <p> and <b>: each pre-rendered, however deep in the module it sits
    expect(js.match(/jsxTemplate\(/g)?.length).toBe(5);
  });

  it("evaluates values in the same order, components and all", () => {
    const source = `
      const log: string[] = [];
      const f = (x: string) => (log.push(x), x);
      const C = (p: any) => (log.push("C"), <i>{p.children}</i>);
      export const page = () => { log.length = 0; const tree = <div a={f("a")}>{f("b")}<C x={f("c")}>{f("d")}</C><p q={f("e")}>{f("f")}</p></div>; return [tree, log.join()]; };`;
    const order = (templates: boolean) => ((compile(source, templates).exports.page as () => [unknown, string])())[1];
    expect(order(true)).toBe(order(false));
    expect(order(true)).toBe("a,b,c,d,C,e,f");
  });

  it("keeps what the renderer refuses refused, at render time as before", () => {
    expectSame(`export const page = (v: any) => <div><br>{v.s}</br></div>;`);
    expectSame(`export const page = (v: any) => <div><p {...{ "bad name": 1 }}>x</p></div>;`);
    expectSame(`export const page = (v: any) => <div>{v.obj.nope?.x}{[new Date(0)]}</div>;`);
    expectSame(`export const page = (v: any) => <div __proto__="x" children="c">{v.n}</div>;`);
  });

  it("writes raw() markup as is and keeps text escaped", () => {
    expectSame(`${HELPERS}
      export const page = (v: any) => <div>{raw("<i>as is</i>")}{v.s}<script>{raw("let a = 1 < 2;")}</script></div>;`);
  });

  it("leaves a file with its own @jsxImportSource pragma alone", () => {
    const pre = compile(`/** @jsxImportSource fw */\nexport const page = () => <p>x</p>;`, true);
    expect(pre.js).not.toContain("jsxShape");
  });

  it("decodes only character references TypeScript decodes to the same text", () => {
    const typescript = readFileSync(createRequire(import.meta.url).resolve("typescript/lib/typescript.js"), "utf8");
    const table = /var entities = new Map\(Object\.entries\(\{([\s\S]*?)\}\)\)/.exec(typescript)?.[1] ?? "";
    const known = new Map([...table.matchAll(/(\w+): (\d+)/g)].map((m) => [m[1] as string, Number(m[2])]));
    expect(known.size).toBeGreaterThan(200);
    const names = "quot amp apos lt gt nbsp iexcl cent pound yen sect copy laquo reg deg plusmn para middot raquo iquest times divide ndash mdash lsquo rsquo sbquo ldquo rdquo bdquo dagger bull hellip prime lsaquo rsaquo euro trade larr uarr rarr darr harr minus le ge ne hearts".split(" ");
    for (const name of names) {
      // Pre-rendered (so its decoding is what is compared), and rendered as TypeScript decodes it.
      expect(expectSame(`export const page = () => <p t="&${name};">&${name};</p>;`), name).toContain("jsxShape(");
    }
    for (const name of names) expect(known.has(name), name).toBe(true);
    // A name it does not know stays runtime JSX, whatever TypeScript makes of it.
    expectSame(`export const page = () => <p t="&spades;">&clubs; &nosuch;</p>;`, undefined);
  });

  // Random trees of the features above, compared both ways.
  it("renders random JSX exactly as the runtime does", () => {
    const texts = fc.constantFrom("hello", "  spaced  ", "\n   line two  \n  ", "a &amp; b", "&copy;&#65;&#x42;", "&lt;i&gt;", `"q" 'a'`, " ", "\t", "é", "&nosuch;", "\n\n");
    const values = fc.constantFrom("{v.s}", "{v.n}", "{v.big}", "{v.no}", "{v.yes}", "{undefined}", "{v.list}", "{/* c */}", '{raw("<u>r</u>")}', '{"  "}', "{[<b>x</b>, v.s]}");
    const attrs = fc.constantFrom('class="a&amp;b"', "id={v.s}", "hidden", "disabled={false}", "n={v.n}", "x={v.no}", "o={v.obj}", "{...v.props}", "key={v.n}", 'title="t &lt;"', "data-on={v.yes}");
    const tags = fc.constantFrom("div", "p", "span", "br", "input", "title", "TITLE", "svg", "my-el", "img", "a", "html", "template", "math", "h1", "Box", "Pass");
    const tree = fc.letrec<{ node: string; children: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        texts,
        values,
        fc.tuple(tags, fc.array(attrs, { maxLength: 3 }), tie("children")).map(([tag, as, children]) => `<${tag} ${as.join(" ")}>${children}</${tag}>`),
        fc.tuple(tags, fc.array(attrs, { maxLength: 2 })).map(([tag, as]) => `<${tag} ${as.join(" ")} />`),
        tie("children").map((children) => `<>${children}</>`),
      ),
      children: fc.array(tie("node"), { maxLength: 4 }).map((nodes) => nodes.join("")),
    }));
    let preRendered = 0;
    fc.assert(
      fc.property(tree.children, (children) => {
        const js = expectSame(`${HELPERS}\nexport const page = (v: any) => <>${children}</>;`);
        // HELPERS' own <section> is always pre-rendered: count the trees with more than that.
        if (js.split("jsxShape(").length > 2) preRendered++;
      }),
      { numRuns: 300 },
    );
    // The comparison means something only if many random trees were in fact pre-rendered.
    expect(preRendered).toBeGreaterThan(100);
  });
});
