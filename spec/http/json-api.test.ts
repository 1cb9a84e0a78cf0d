import { describe, expect, it } from "vitest";
import { PRODUCTION_ENV } from "../support/serve.js";
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
