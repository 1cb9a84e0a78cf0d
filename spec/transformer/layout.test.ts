import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILD_TIMEOUT_MS, FIXTURES, run, tspc, type Built } from "../support/tspc.js";
import { runNode } from "../support/process.js";

const dir = join(FIXTURES, "layout");
let built: Built;
let generated: string;

beforeAll(async () => {
  built = await tspc(dir);
  generated = readFileSync(join(dir, "src/.fw/routes.ts"), "utf8");
});

/** The rows of the generated table as "METHOD /pattern", in order. */
function rows(text: string): string[] {
  return [...text.matchAll(/Route\.(http|api)\(\{ method: "([A-Z]+)", path: "([^"]+)"|Route\.ws\("([^"]+)"/g)].map((m) =>
    m[4] !== undefined ? `WS ${m[4]}` : `${m[2]} ${m[3]}`,
  );
}

describe("4.1 / 4.2 A layout using every rule, built with tspc", () => {
  it("builds, printing only the warnings for models that mount nothing", () => {
    expect(built.code, built.output).toBe(0);
    expect(built.output).not.toContain("error");
  });

  it("emits the handwritten rows most static first, in spec 4.2 order", () => {
    expect(rows(generated)).toEqual([
      "GET /api/status",
      "WS /live/socket",
      "GET /posts/new",
      "GET /posts/new-ideas",
      "GET /teams/:team/members/:member",
      "GET /posts/:id/edit",
      "GET /posts/:id",
      "PUT /posts/:id",
      "DELETE /posts/:id",
      "GET /docs/*rest",
      "GET /about",
      "GET /about-us",
      "GET /blogroll",
      "GET /guides",
      "GET /posts",
      "POST /posts",
      "GET /",
    ]);
  });

  it("every row carries // from <source file>", () => {
    const lines = generated.split("\n");
    const routeLines = lines.map((line, i) => [line, i] as const).filter(([line]) => /^\s+(Route\.|r\d+\.guarded)/.test(line));
    for (const [, i] of routeLines) expect(lines[i - 1]).toMatch(/^\s+\/\/ from src\/app\/\S+\.tsx?$/);
    const derivedLines = lines.map((line, i) => [line, i] as const).filter(([line]) => /^\s+\.\.\.guardFor\(/.test(line));
    expect(derivedLines).toHaveLength(3);
    for (const [, i] of derivedLines) expect(lines[i - 1]).toMatch(/^\s+\/\/ from src\/models\/\S+\.ts \(the derived routes of \w+: models\.[\w.]+\)$/);
    expect(generated).toContain('// from src/app/posts/New.ts\n    Route.http({ method: "GET", path: "/posts/new", handler: r');
  });

  it("reads New through `export { fresh as new }`, custom names decapitalised, helpers ignored", () => {
    expect(generated).toMatch(/handler: r\d+\["new"\]/);
    expect(generated).toMatch(/handler: r\d+\.blogRoll/);
    expect(generated).not.toContain("helpers");
    expect(generated).not.toContain("components");
  });

  it("mints the API kind only for the handler taking ApiRequest, and a Ws route for a listener", () => {
    expect(generated.match(/Route\.api\(/g)).toHaveLength(1);
    expect(generated).toContain('Route.api({ method: "GET", path: "/api/status"');
    expect(generated).toContain('Route.ws("/live/socket", r');
  });

  it("decodes typed path parameters through typia, and leaves strings alone", () => {
    expect(generated).toContain('id: FromPath.typia("number", typia.http.createParameter<');
    expect(generated).toContain('member: FromPath.typia("number"');
    expect(generated).not.toContain("team: FromPath");
    expect(generated).not.toContain("rest: FromPath");
  });

  it("derives the models' rows after the handwritten ones, model by model in fully-qualified-name order", () => {
    const handwrittenEnd = generated.lastIndexOf("Route.http(");
    const derived = [...generated.matchAll(/\.\.\.guardFor\(/g)].map((m) => m.index);
    expect(derived.every((at) => at > handwrittenEnd)).toBe(true);
    expect([...generated.matchAll(/\(the derived routes of (\w+)/g)].map((m) => m[1])).toEqual(["Author", "Comment", "Post"]);
  });

  it("finds models anywhere, orders them by fully-qualified name, and warns about nested ones", () => {
    expect(generated).toContain('export const models: readonly string[] = ["models.Author", "models.Blog.Comment", "models.Post"];');
    expect(built.output).toMatch(/src\/models\/index\.ts\(\d+,\d+\): warning TS91008: fw: .*derives<Draft> is inside a function, class or block/);
    expect(built.output).not.toMatch(/warning.*derives<Comment>/);
  });

  it("rewrites the generated file only when its text changes", async () => {
    const file = join(dir, "src/.fw/routes.ts");
    const before = statSync(file).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    const again = await run(dir);
    expect(again.code).toBe(0);
    expect(statSync(file).mtimeMs).toBe(before);
  }, BUILD_TIMEOUT_MS);

  it("`routes` on the built app prints each row's source file, origin and kind", async () => {
    const { code, out } = await runNode(join(dir, "dist/main.js"), ["routes"]);
    expect(code).toBe(0);
    expect(out).toMatch(/GET\s+\/posts\/:id\s+src\/app\/posts\/_id\/Show\.ts\s+Handwritten\s+browser/);
    expect(out).toMatch(/GET\s+\/api\/status\s+src\/app\/api\/status\/Index\.ts\s+Handwritten\s+api/);
    expect(out).toMatch(/WS\s+\/live\/socket\s+src\/app\/live\/Socket\.ts/);
  });
});
