import { describe, expect, it } from "vitest";
import { ApiRequest, BadRequest, Json, JsonProblem, MAX_JSON_ERRORS, Route, type JsonCheck } from "../../runtime/index.js";
import { expectingJson } from "../../runtime/http/request.js";
import { jsonText } from "../../runtime/http/json.js";

const always = (errors: number): JsonCheck => () =>
  errors === 0 ? { success: true, data: { ok: 1 } } : { success: false, errors: Array.from({ length: errors }, (_, i) => ({ path: `$input.items[${i}]`, expected: "number", value: "x" })) };

const jsonRequest = (body: string, check: JsonCheck, contentType = "application/json") =>
  expectingJson(new ApiRequest<Record<string, string>, { ok: number }>({ method: "POST", path: "/api/x", headers: { "content-type": contentType }, body }), check);

describe("Json and JsonProblem responses", () => {
  it("Json: the value, written when it goes out; application/json with utf-8, not stored; the status given or 200", () => {
    const answer = Json({ a: [1, "é"] }, 201);
    expect(answer.status).toBe(201);
    expect(answer.header("content-type")).toBe("application/json; charset=utf-8");
    expect(answer.header("cache-control")).toBe("no-store");
    expect(answer.body).toEqual({ type: "json", value: { a: [1, "é"] } });
    expect(jsonText({ a: [1, "é"] }, undefined)).toBe('{"a":[1,"é"]}');
    expect(Json(null).status).toBe(200);
  });

  it("Json of something JSON cannot write (undefined, a function) is a programming error that says so", () => {
    expect(() => Json(undefined)).toThrow(/undefined cannot be written as JSON/);
    expect(() => Json(() => 1)).toThrow(/function cannot be written as JSON/);
  });

  it("JsonProblem: application/problem+json at the problem's status", () => {
    const answer = JsonProblem({ type: "about:blank", title: "Conflict", status: 409, detail: "Taken." });
    expect([answer.status, answer.header("content-type")]).toEqual([409, "application/problem+json"]);
  });
});

describe("request.json() and readJson()", () => {
  it("json() answers the checked value; a failure is a BadRequest whose detail names the paths", () => {
    expect(jsonRequest('{"ok":1}', always(0)).json()).toEqual({ ok: 1 });
    expect(() => jsonRequest('{"ok":1}', always(2)).json()).toThrow(BadRequest);
    expect(() => jsonRequest('{"ok":1}', always(2)).json()).toThrow("$.items[0]: expected number; $.items[1]: expected number");
  });

  it(`names at most ${MAX_JSON_ERRORS} failing places, and says how many there were`, () => {
    const read = jsonRequest("[]", always(50)).readJson();
    if (read.ok) throw new Error("expected a refusal");
    expect(read.problem.errors).toHaveLength(MAX_JSON_ERRORS);
    expect(read.problem.detail).toContain(`(the first ${MAX_JSON_ERRORS} of 50)`);
  });

  it("a content type with parameters or of a +json kind is JSON; text/plain is not", () => {
    expect(jsonRequest('{"ok":1}', always(0), "Application/JSON; charset=utf-8").readJson().ok).toBe(true);
    expect(jsonRequest('{"ok":1}', always(0), "application/merge-patch+json").readJson().ok).toBe(true);
    expect(jsonRequest('{"ok":1}', always(0), "text/plain").readJson().ok).toBe(false);
  });

  it("on a route with no check (built by hand without `json`), json() throws saying how to declare the body", async () => {
    const route = Route.api({ method: "POST", path: "/api/x", handler: (request) => Json(request.json()) });
    const { Request } = await import("../../runtime/index.js");
    expect(() => route.handler(new Request({ method: "POST", path: "/api/x", body: "{}" }))).toThrow(/request\.json\(\) needs the body's type.*JsonRequest<NewTask>/);
  });

  it("Route.api with `json` hands the handler a request that checks its body", async () => {
    const route = Route.api({ method: "POST", path: "/api/x", json: always(0), handler: (request: ApiRequest<Record<string, string>, { ok: number }>) => Json(request.json().ok) });
    const { Request } = await import("../../runtime/index.js");
    const answer = await route.handler(new Request({ method: "POST", path: "/api/x", headers: { "content-type": "application/json" }, body: "{}" }));
    expect(answer.body).toEqual({ type: "json", value: 1 });
  });
});
