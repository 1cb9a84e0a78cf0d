import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { runNode } from "../support/process.js";
import { PRODUCTION_ENV, TEST_SECRET } from "../support/serve.js";
import { servedFixture } from "../support/tspc.js";

/** Issue 43, item 3: a handler declares its query parameters' types; typia decodes them as it decodes path parameters. */
const fixture = servedFixture("query-params", { ...PRODUCTION_ENV });

const get = async (path: string): Promise<{ status: number; text: string }> => {
  const response = await fetch(`${fixture.url}${path}`);
  return { status: response.status, text: await response.text() };
};

describe("typed query parameters (Request<Params, Query>)", () => {
  it("decodes numbers, text, booleans, dates, literal unions and lists before the handler runs; a field it does not declare stays in request.query", async () => {
    const read = await get("/search?page=3&q=null&done=false&from=2026-02-28&tag=4&tag=9&kind=open&utm_source=mail");
    expect(read.status).toBe(200);
    expect(JSON.parse(read.text)).toEqual({ page: 3, q: "null", done: false, from: "2026-02-28T00:00:00.000Z", tag: [4, 9], kind: "open", utm: "mail" });
    // Left out: absent (a list: empty); an empty number, yes/no or date field as a form sends it: absent.
    expect(JSON.parse((await get("/search")).text)).toEqual({ tag: [], utm: null });
    expect(JSON.parse((await get("/search?page=&done=&from=&q=")).text)).toEqual({ q: "", tag: [], utm: null });
    expect(JSON.parse((await get("/search?done=on")).text)).toMatchObject({ done: true });
  });

  it("a bad value is a 400 naming the parameter and what it takes: numbers in their one spelling, typia's tags, a literal union, a day, a value given twice", async () => {
    const refusals: [string, RegExp][] = [
      ["/search?page=x", /The query parameter &quot;page&quot; is not a number \(written as 7, -2 or 1\.5\): &quot;x&quot;/],
      ["/search?page=07", /&quot;page&quot; is not a number/],
      ["/search?page=1e1", /&quot;page&quot; is not a number/],
      ["/search?page=0", /&quot;page&quot; must be .*Minimum&lt;1&gt;.*not 0/],
      ["/search?page=1.5", /&quot;page&quot; must be .*uint32/],
      ["/search?page=1&page=2", /&quot;page&quot; is given 2 times; it takes one value/],
      ["/search?done=maybe", /&quot;done&quot; is not true or false/],
      ["/search?from=2026-02-30", /&quot;from&quot; is not a date \(YYYY-MM-DD\)/],
      ["/search?kind=shut", /&quot;kind&quot; must be \(&quot;closed&quot; \| &quot;open&quot;\)|&quot;kind&quot; must be .*open/],
      ["/search?tag=1&tag=x", /&quot;tag&quot; is not a number/],
      [`/search?q=${"a".repeat(101)}`, /&quot;q&quot; must be .*MaxLength&lt;100&gt;/],
      ["/notes/3", /&quot;highlight&quot; must be string \(it is missing\)/],
    ];
    for (const [path, message] of refusals) {
      const answer = await get(path);
      expect(answer.status, path).toBe(400);
      expect(answer.text, path).toMatch(message);
    }
    const both = await get("/search?page=x&done=maybe");
    expect(both.text).toContain("The query parameters: &quot;page&quot; is not a number");
    expect(both.text).toContain("&quot;done&quot; is not true or false");
  });

  it("path and query parameters together; a path parameter's 400 comes first", async () => {
    expect(await get("/notes/3?highlight=x&limit=2")).toEqual({ status: 200, text: "note 3, highlight x, limit 2" });
    expect((await get("/notes/03?highlight=x")).status).toBe(400);
  });

  it("an API route's query: 400 naming the parameter; a route declaring none reads the fields as text", async () => {
    const items = await fetch(`${fixture.url}/api/items?limit=5&q=milk&tag=a&tag=b`);
    expect(await items.json()).toEqual({ limit: 5, q: "milk", tags: ["a", "b"] });
    const over = await get("/api/items?limit=51");
    expect(over.status).toBe(400);
    expect(over.text).toMatch(/&quot;limit&quot; must be .*Maximum&lt;50&gt;/);
    expect((await get("/api/items")).text).toMatch(/&quot;limit&quot; must be .*\(it is missing\)/);
    expect(await (await fetch(`${fixture.url}/api/plain?x=1&x=2`)).json()).toEqual({ x: "1" });
  });

  it("fw/client's query is typed from the declaration (the build type-checked src/calls.ts, wrong calls included) and sent as the server reads it", async () => {
    const calls = (await import(join(fixture.dir, "dist", "calls.js"))) as { callWithQuery(url: string): Promise<unknown> };
    expect(await calls.callWithQuery(fixture.url)).toEqual({ items: { limit: 5, q: "milk", tags: ["a", "b"] }, limit: 5, plain: { x: "anything" } });
  });

  it("the OpenAPI document lists an API route's query parameters, required as declared, with their schemas", async () => {
    const printed = await runNode(join(fixture.dir, "dist", "main.js"), ["openapi"], { FW_SECRET: TEST_SECRET });
    expect(printed.code).toBe(0);
    const document = JSON.parse(printed.out) as { paths: Record<string, Record<string, { parameters?: { name: string; in: string; required: boolean; schema: object }[]; responses: Record<string, { description: string }> }>> };
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as Record<string, unknown>);
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    const items = document.paths["/api/items"]?.["get"];
    expect(items?.parameters).toEqual([
      { name: "limit", in: "query", required: true, schema: expect.objectContaining({ type: "integer", maximum: 50 }) },
      { name: "q", in: "query", required: false, schema: { type: "string" } },
      { name: "tag", in: "query", required: false, schema: { type: "array", items: { type: "string" } } },
    ]);
    expect(items?.responses["400"]?.description).toContain("a query parameter that is not of its type");
    expect(document.paths["/api/plain"]?.["get"]?.parameters).toBeUndefined();
  });
});
