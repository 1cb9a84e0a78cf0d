import { Validator } from "@seriousme/openapi-schema-validator";
import { afterEach, describe, expect, it } from "vitest";
import { Json, jsonAnswerMismatch, Route, RouteTable, type ApiDescription } from "../../runtime/index.js";
import { openApiDocument } from "../../runtime/openapi/document.js";
import { serve, type Served } from "../support/serve.js";

/**
 * Issue 31, items 4 and 6, on hand-built routes: a route's typed stringify writes its `Json`
 * answers, and the OpenAPI document of a table. (The build's side, typia's stringify and schemas
 * read off real handlers, is spec/http/json-api.test.ts.)
 */
let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const value = { id: 7, title: "Hello", secret: "not for the wire" };

describe("Json answers go out through the route's typed stringify", () => {
  it("a route with `stringify` writes the handler's Json value with it; one without, with JSON.stringify", async () => {
    const typed = (input: unknown): string => JSON.stringify({ id: (input as typeof value).id, title: (input as typeof value).title });
    served = await serve({
      routes: RouteTable.of(
        Route.api({ method: "GET", path: "/api/typed", handler: () => Json(value), stringify: typed }),
        Route.api({ method: "GET", path: "/api/plain", handler: () => Json(value) }),
      ),
    });
    const typedAnswer = await served.get("/api/typed");
    expect([typedAnswer.status, typedAnswer.headers.get("content-type"), await typedAnswer.text()]).toEqual([200, "application/json; charset=utf-8", '{"id":7,"title":"Hello"}']);
    expect(await (await served.get("/api/plain")).text()).toBe(JSON.stringify(value));
  });

  it("a guard's `through` keeps the route's stringify (the wrapped handler's answers are still its own)", async () => {
    const route = Route.api({ method: "GET", path: "/api/typed", handler: () => Json(value), stringify: () => '"typed"' });
    const guarded = { ...route, guard: "test", handler: route.handler };
    served = await serve({ routes: RouteTable.of(guarded) });
    expect(await (await served.get("/api/typed")).text()).toBe('"typed"');
  });

  it("an answer that is not its type is a 500 whose log line names the route file, the place and the fix; nothing of it is sent", async () => {
    const mismatch = jsonAnswerMismatch("src/app/api/posts/Index.ts");
    const checked = (input: unknown): string => {
      // What typia's createAssertStringify does with its error factory when a value breaks the type.
      throw mismatch({ path: "$input.total", expected: "number", value: (input as { total: unknown }).total });
    };
    served = await serve({ routes: RouteTable.of(Route.api({ method: "GET", path: "/api/posts", handler: () => Json({ total: "many" }), stringify: checked })) });
    const answer = await served.get("/api/posts");
    expect(answer.status).toBe(500);
    expect(await answer.text()).not.toContain("many");
    expect(served.err.join("\n")).toContain(
      "src/app/api/posts/Index.ts answered JSON that is not its answer type: $.total: expected number, got string. The answer was not sent.",
    );
  });
});

/** A description as the build writes it (.fw/api.ts's `description()`), by hand. */
const description: ApiDescription = {
  schemas: {
    components: { schemas: { Post: { type: "object", properties: { id: { type: "integer" }, title: { type: "string" } }, required: ["id", "title"] } } },
    schemas: [{ type: "integer", minimum: 0 }, { $ref: "#/components/schemas/Post" }, { type: "object", properties: { title: { type: "string" } }, required: ["title"] }],
  },
  operations: {
    "GET /api/posts/:id": { source: "src/app/api/posts/_id/Show.ts", doc: "One post. Drafts are not shown.", params: { id: 0 }, answers: [{ status: 200, media: "json", schema: 1 }], thrown: [404], other: false },
    "POST /api/posts": { source: "src/app/api/posts/Create.ts", params: {}, body: 2, answers: [{ status: 201, media: "json", schema: 1 }, { status: "default", media: "problem" }], other: false },
  },
};

const described = (operation: string) => ({ operation, load: () => Promise.resolve(description) });
const table = (): RouteTable =>
  RouteTable.of(
    Route.api({ method: "GET", path: "/api/posts/:id", handler: () => Json(1), described: described("GET /api/posts/:id") }),
    Route.api({ method: "POST", path: "/api/posts", handler: () => Json(1), described: described("POST /api/posts") }),
    Route.api({ method: "GET", path: "/api/files/*rest", handler: () => Json(1) }),
    Route.get("/posts", () => Json(1)),
  );

/** The document passes @seriousme/openapi-schema-validator (on a copy: resolving the references rewrites what it holds). */
async function validated(document: object): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document) as Record<string, unknown>);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  expect([result.valid, validator.version]).toEqual([true, "3.1"]);
  expect(() => validator.resolveRefs()).not.toThrow();
}

describe("the OpenAPI document of a table", () => {
  it("lists the API routes alone, as served (under a prefix), with their parameters, bodies, answers and fw's refusals; it passes the validator", async () => {
    const document = (await openApiDocument(Route.under("/v1", table()).routes, { title: "Test", version: "1.0.0" })) as {
      paths: Record<string, Record<string, { parameters?: { name: string; schema: object }[]; requestBody?: object; responses: Record<string, { content?: Record<string, object> }>; summary?: string; operationId: string }>>;
      components: { schemas: Record<string, object> };
    };
    await validated(document);
    expect(Object.keys(document.paths)).toEqual(["/v1/api/posts/{id}", "/v1/api/posts", "/v1/api/files/{rest}"]);
    const show = document.paths["/v1/api/posts/{id}"]?.["get"];
    expect(show?.operationId).toBe("getV1ApiPostsById");
    expect(show?.summary).toBe("One post.");
    expect(show?.parameters?.[0]).toEqual({ name: "id", in: "path", required: true, schema: { type: "integer", minimum: 0 } });
    expect(Object.keys(show?.responses ?? {})).toEqual(["200", "400", "404", "500"]);
    expect(show?.responses["200"]?.content).toEqual({ "application/json": { schema: { $ref: "#/components/schemas/Post" } } });
    expect(Object.keys(show?.responses["404"]?.content ?? {})).toEqual(["text/html"]);
    const create = document.paths["/v1/api/posts"]?.["post"];
    expect(create?.requestBody).toEqual({ required: true, content: { "application/json": { schema: description.schemas.schemas[2] } } });
    expect(Object.keys(create?.responses ?? {})).toEqual(["201", "400", "413", "500", "default"]);
    expect(Object.keys(create?.responses["default"]?.content ?? {})).toEqual(["application/problem+json"]);
    expect(Object.keys(document.components.schemas)).toEqual(["Post", "Problem"]);
    // A route built by hand, with no description: its parameter as text, its answer not described.
    const files = document.paths["/v1/api/files/{rest}"]?.["get"];
    expect(files?.parameters?.[0]?.schema).toEqual({ type: "string" });
    expect(Object.keys(files?.responses ?? {})).toEqual(["500", "default"]);
  });

  it("is served at /fw/openapi.json in dev, not in production unless the app asks (openapi.serve)", async () => {
    served = await serve({ routes: table(), openapi: { title: "Test", version: "2.0.0" } }, { dev: true, devHook: undefined });
    const dev = await served.get("/fw/openapi.json");
    expect([dev.status, dev.headers.get("content-type")]).toEqual([200, "application/json; charset=utf-8"]);
    const document = (await dev.json()) as { info: object; paths: object };
    expect(document.info).toEqual({ title: "Test", version: "2.0.0" });
    await validated(document);
    await served.close();
    served = await serve({ routes: table() });
    expect((await served.get("/fw/openapi.json")).status).toBe(404);
    await served.close();
    served = await serve({ routes: table(), openapi: { serve: true } });
    expect(((await (await served.get("/fw/openapi.json")).json()) as { info: object }).info).toEqual({ title: "fw app", version: "0.0.0" });
  });
});
