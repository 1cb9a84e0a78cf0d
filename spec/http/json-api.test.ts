import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { runNode } from "../support/process.js";
import { PRODUCTION_ENV, TEST_SECRET } from "../support/serve.js";
import { servedFixture } from "../support/tspc.js";

/** Issue 22, item 4: JSON bodies checked against the handler's declared type (typia, at build time). */
const fixture = servedFixture("json-api", { ...PRODUCTION_ENV });

const send = (method: string, path: string, body: string, contentType = "application/json") =>
  fetch(`${fixture.url}${path}`, { method, headers: { "content-type": contentType }, body });
/** A JSON answer's members. */
const read = async (response: globalThis.Response): Promise<Record<string, unknown>> => (await response.json()) as Record<string, unknown>;

describe("JSON APIs: request.json() of a declared body type", () => {
  it("a body of the declared type reaches the handler; Json answers it as JSON, not stored by caches", async () => {
    const created = await send("POST", "/api/tasks", JSON.stringify({ title: "Write tests", done: false, tags: ["fw"] }));
    expect(created.status).toBe(201);
    expect(created.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect(await created.json()).toEqual({ id: 1, title: "Write tests", done: false, tags: ["fw"] });
    const listed = await fetch(`${fixture.url}/api/tasks`);
    expect((await read(listed))["tasks"]).toHaveLength(1);
  });

  it("a body of another shape is fw's 400 problem page (HTML, spec 2.16) naming every failing path; nothing is stored", async () => {
    const bad = await send("POST", "/api/tasks", JSON.stringify({ title: "", done: "yes", tags: [1] }));
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await bad.text();
    expect(page).toContain("$.title: expected string &amp; MinLength&lt;1&gt;;");
    expect(page).toContain("$.done: expected boolean");
    expect(page).toContain("$.tags[0]: expected string");
    const missing = await send("POST", "/api/tasks", "{}");
    expect(await missing.text()).toMatch(/\$\.title: expected .*\$\.done: expected boolean/);
    const stored = (await read(await fetch(`${fixture.url}/api/tasks`)))["tasks"] as { title: string }[];
    expect(stored.map((t) => t.title)).toEqual(["Write tests"]);
  });

  it("malformed JSON, an empty body, invalid UTF-8 and a non-JSON content type are 400s saying so", async () => {
    expect(await send("POST", "/api/tasks", '{"title": "x",').then(async (r) => [r.status, await r.text()])).toEqual([400, expect.stringContaining("The request body is not valid JSON")]);
    expect(await send("POST", "/api/tasks", "").then((r) => r.text())).toContain("not valid JSON: it is empty");
    const latin1 = await fetch(`${fixture.url}/api/tasks`, { method: "POST", headers: { "content-type": "application/json" }, body: new Uint8Array([0x22, 0xe9, 0x22]) });
    expect([latin1.status, await latin1.text()]).toEqual([400, expect.stringContaining("not valid UTF-8")]);
    const form = await send("POST", "/api/tasks", "title=x&done=true", "application/x-www-form-urlencoded");
    expect([form.status, await form.text()]).toEqual([400, expect.stringContaining("must be JSON sent with Content-Type: application/json; this request has Content-Type application/x-www-form-urlencoded")]);
    expect((await send("POST", "/api/tasks", JSON.stringify({ title: "Vendor type", done: true }), "application/vnd.api+json")).status).toBe(201);
  });

  it("a body over the app's maxBodySize is 413 before the handler runs", async () => {
    const huge = await send("POST", "/api/tasks", JSON.stringify({ title: "x".repeat(5000), done: false }));
    expect(huge.status).toBe(413);
  });

  it("a handler answers its own JSON errors: readJson() and JsonProblem (application/problem+json with the failing paths)", async () => {
    const bad = await send("PUT", "/api/tasks/1", JSON.stringify({ done: "no" }));
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toBe("application/problem+json");
    expect(await bad.json()).toEqual({
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      detail: "The request body does not match the expected type: $.done: expected boolean.",
      errors: [{ path: "$.done", expected: "boolean" }],
    });
    const malformed = await send("PUT", "/api/tasks/1", "nope");
    expect(malformed.headers.get("content-type")).toBe("application/problem+json");
    expect((await read(malformed))["detail"]).toMatch(/^The request body is not valid JSON/);
    const ok = await send("PUT", "/api/tasks/1", JSON.stringify({ done: true }));
    expect(ok.status).toBe(200);
    expect((await read(ok))["done"]).toBe(true);
    const unknown = await send("PUT", "/api/tasks/99", JSON.stringify({ done: true }));
    expect([unknown.status, (await read(unknown))["title"]]).toEqual([404, "Not Found"]);
  });
});

/** What the fixture's src/calls.ts exports, built (fw/client typed by the fixture's generated Api). */
interface Calls {
  callEveryRoute(baseUrl: string): Promise<{ created: { id: number; title: string }; shown: { id: number; done: boolean }; updated: { done: boolean }; titles: string[] }>;
  brokenCall(baseUrl: string): Promise<unknown>;
  client(baseUrl: string): { get(path: string, params?: object): Promise<unknown>; put(path: string, params: object, body: unknown): Promise<unknown> };
}
const calls = (): Promise<Calls> => import(join(fixture.dir, "dist", "calls.js")) as Promise<Calls>;

describe("typed JSON answers, fw/client and the OpenAPI document (issue 31)", () => {
  it("every API route answers through fw/client, typed by the generated Api (the build type-checked src/calls.ts)", async () => {
    const { created, shown, updated, titles } = await (await calls()).callEveryRoute(fixture.url);
    expect(created).toMatchObject({ title: "Typed call", done: false, tags: ["client"] });
    expect(shown).toEqual(created);
    expect(updated).toEqual({ ...created, done: true });
    expect(titles).toContain("Typed call");
  });

  it("an answer is written by typia's typed stringify: members its type does not name stay out (JSON.stringify would send them)", async () => {
    const created = await send("POST", "/api/tasks", JSON.stringify({ title: "With extras", done: false, internal: "not for the answer" }));
    const text = await created.text();
    expect(created.status).toBe(201);
    expect(text).toMatch(/^\{"title":"With extras","done":false,"id":\d+\}$/);
    expect(await (await fetch(`${fixture.url}/api/tasks`)).text()).not.toContain("not for the answer");
  });

  it("an answer that is not its type at run time is a 500 naming the route file; fw/client rejects with a typed ApiError", async () => {
    const error = await (await calls()).brokenCall(fixture.url).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({ name: "ApiError", kind: "refused", status: 500, method: "GET", path: "/api/counts", problem: { title: "Internal Server Error" } });
    expect(fixture.app.output().err).toContain("src/app/api/counts/Index.ts answered JSON that is not its answer type: $.count: expected number, got string.");
  });

  it("refusals reject with an ApiError carrying the problem: fw's HTML page (a thrown NotFound) and a handler's problem+json alike", async () => {
    const client = (await calls()).client(fixture.url);
    const missing = await client.get("/api/tasks/:id", { id: 999 }).catch((thrown: unknown) => thrown);
    expect(missing).toMatchObject({ kind: "refused", status: 404, problem: { title: "Not Found", detail: "There is no task 999.", instance: "/api/tasks/999" } });
    const refused = await client.put("/api/tasks/:id", { id: 1 }, { done: "no" }).catch((thrown: unknown) => thrown);
    expect(refused).toMatchObject({ kind: "refused", status: 400, problem: { title: "Bad Request", errors: [{ path: "$.done", expected: "boolean" }] } });
  });

  it("`openapi` prints the document: it passes the validator and says what each route takes and answers, read off its types", async () => {
    const printed = await runNode(join(fixture.dir, "dist", "main.js"), ["openapi"], { FW_SECRET: TEST_SECRET });
    expect(printed.code).toBe(0);
    const document = JSON.parse(printed.out) as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: object }> }; responses: Record<string, { content?: Record<string, { schema: object }> }> }>>; components: { schemas: Record<string, { properties?: object; required?: string[] }> } };
    await validated(document);
    expect(Object.keys(document.paths)).toEqual(["/api/tasks/{id}", "/api/counts", "/api/tasks"]);
    const create = document.paths["/api/tasks"]?.["post"];
    expect(create?.requestBody?.content["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/NewTask" });
    expect(Object.keys(create?.responses ?? {})).toEqual(["201", "400", "413", "500"]);
    expect(document.components.schemas["NewTask"]?.required).toEqual(["title", "done"]);
    const update = document.paths["/api/tasks/{id}"]?.["put"];
    // Its JsonProblem answers: an inferred return type merges JsonProblemResponse<404> into the
    // JsonProblemResponse<number> of read.problem, so they are listed under "default".
    expect(Object.keys(update?.responses ?? {})).toEqual(["200", "400", "413", "500", "default"]);
    expect(Object.keys(update?.responses["default"]?.content ?? {})).toEqual(["application/problem+json"]);
    expect(Object.keys(update?.responses["400"]?.content ?? {})).toEqual(["text/html"]);
    expect(Object.keys(document.paths["/api/tasks/{id}"]?.["get"]?.responses ?? {})).toEqual(["200", "400", "404", "500"]);
    // Production serves none unless the app asks (it lists every API route).
    expect((await fetch(`${fixture.url}/fw/openapi.json`)).status).toBe(404);
  });
});

/** The document passes @seriousme/openapi-schema-validator (on a copy: resolving references rewrites what it holds). */
async function validated(document: object): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document) as Record<string, unknown>);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  expect([result.valid, validator.version]).toEqual([true, "3.1"]);
}
