// House rule: no import circles. A circle loads one of its modules half-made (its `const`s still
// in their temporal dead zone when the other reads them), so it works or throws by the order the
// modules happen to be reached in; and a bundler has to guess that order. This reads the imports
// of every source file under the example's src/ and fw's runtime/ and transformer/ with the
// TypeScript parser and fails on any circle, naming its files in import order.
//
// Counted: every `import … from`, `export … from` and `import "…"` of a relative path, whether its
// names are used as values or only as types, `import type` and `export type` included (TypeScript
// drops those, but a circle of types is still two modules that cannot be read apart: issue 39
// item 25 found transformer/emit.ts and emit-api.ts importing each other through a type, which
// this test did not count then); not counted: `import()` (loaded later, by design).
//
// The example's own generated modules (src/.fw/routes.ts, jobs.ts…) import its route and job
// files, so they are part of the graph: the example must be built (`npm run build`, as npm test
// does first).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** Every .ts/.tsx file under `dir`, generated `.fw/` folders included, node_modules and dist not. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The relative specifiers a file imports or re-exports at load (see the top of this file for what counts). */
function loadImports(text: string, fileName = "file.tsx"): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined) found.push((statement.moduleSpecifier as ts.StringLiteral).text);
  }
  return found.filter((spec) => spec.startsWith("."));
}

/** The file a relative specifier names (`./mail.js` is mail.ts or mail.tsx, `./models` its index), or undefined. */
function resolveSpecifier(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec).replace(/\.(m?js|jsx)$/, "");
  const candidates = [`${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")];
  return candidates.find((path) => existsSync(path));
}

/** Each circle of the graph once, as the files in import order with the first repeated at the end. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components: a component of two or more files (or a file importing
  // itself) holds at least one circle; one path around it is enough to name the culprits.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let top: string;
      do {
        top = stack.pop() as string;
        onStack.delete(top);
        component.push(top);
      } while (top !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((component) => {
    // A path from the component's first file (by name) back to itself, inside the component.
    const members = new Set(component);
    const start = [...component].sort()[0] as string;
    const path = [start];
    const seen = new Set([start]);
    const walk = (node: string): boolean => {
      for (const next of graph.get(node) ?? []) {
        if (!members.has(next)) continue;
        if (next === start) return path.push(start) > 0;
        if (seen.has(next)) continue;
        seen.add(next);
        path.push(next);
        if (walk(next)) return true;
        path.pop();
      }
      return false;
    };
    walk(start);
    return path;
  });
}

/** The import graph of the files under `root`, keyed by path relative to it. */
function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(root)) {
    const targets = loadImports(readFileSync(file, "utf8"), file).flatMap((spec) => {
      const target = resolveSpecifier(file, spec);
      return target === undefined ? [] : [relative(root, target)];
    });
    graph.set(relative(root, file), targets);
  }
  return graph;
}

describe("no import circles (house rule)", () => {
  it("the example's sources, with the modules its build generates, import in no circle", () => {
    const root = resolve("example/src");
    expect(existsSync(join(root, ".fw/routes.ts")) && existsSync(join(root, ".fw/jobs.ts")), "the example is not built: run `npm run build` first").toBe(true);
    const graph = importGraph(root);
    expect(graph.size).toBeGreaterThan(20);
    expect(graph.get(".fw/jobs.ts"), "the graph sees the generated jobs module's imports").toContain("jobs/DeliverMail.ts");
    expect(circles(graph).map((circle) => circle.join(" -> "))).toEqual([]);
  });

  it("fw's own runtime and transformer import in no circle", () => {
    for (const dir of ["runtime", "transformer"]) {
      const graph = importGraph(resolve(dir));
      expect(graph.size, dir).toBeGreaterThan(10);
      expect(circles(graph).map((circle) => `${dir}: ${circle.join(" -> ")}`)).toEqual([]);
    }
  });

  it("the checks see what they look for", () => {
    expect(
      loadImports(
        [
          'import { a } from "./a.js";',
          'import type { B } from "./b.js";',
          'import { type C } from "./c.js";',
          'export { d } from "./d.js";',
          'export type { E } from "./e.js";',
          'export * from "./f.js";',
          'import "./g.js";',
          'import { h } from "fw";',
          'const i = await import("./i.js");',
          'declare const typia: typeof import("typia").default;',
        ].join("\n"),
      ),
    ).toEqual(["./a.js", "./b.js", "./c.js", "./d.js", "./e.js", "./f.js", "./g.js"]);
    const graph = new Map([
      ["main.ts", ["mail.ts", ".fw/jobs.ts"]],
      ["mail.ts", [".fw/jobs.ts"]],
      [".fw/jobs.ts", ["jobs/DeliverMail.ts"]],
      ["jobs/DeliverMail.ts", ["mail.ts"]],
      ["self.ts", ["self.ts"]],
      ["leaf.ts", []],
    ]);
    expect(circles(graph)).toEqual([
      [".fw/jobs.ts", "jobs/DeliverMail.ts", "mail.ts", ".fw/jobs.ts"],
      ["self.ts", "self.ts"],
    ]);
    expect(circles(new Map([["a.ts", ["b.ts"]], ["b.ts", []]]))).toEqual([]);
  });
});
