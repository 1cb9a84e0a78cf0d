import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ApiError, createClient, type ClientOptions } from "../../runtime/client/index.js";
import type { JsonCheck } from "../../runtime/index.js";

/**
 * fw/client's calls (issue 31, item 5) over a `fetch` the test answers: what a call sends, and
 * how it reads what comes back. Typed against a hand-written `Api` here; the generated one, and
 * calls that must not compile, are spec/http/json-api.test.ts and spec/client/client-misuse.test.ts.
 */
type Api = {
  "GET /api/posts/:id": { params: { id: number }; body: never; answer: { id: number; title: string } };
  "GET /api/files/*rest": { params: { rest: string }; body: never; answer: { size: number } };
  "POST /api/posts": { params: {}; body: { title: string }; answer: { id: number; title: string } };
  "GET /api/plain": { params: {}; body: never; answer: { raw: true; status: number; headers: Headers; text: string } };
};

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A client whose every call gets `answer` back, and what it sent. */
function clientAnswering(answer: () => Response, options: Omit<ClientOptions<Api>, "fetch"> = {}) {
  const sent: Sent[] = [];
  const fake = (async (url: string | URL | Request, init?: RequestInit) => {
    sent.push({ url: String(url), method: init?.method ?? "GET", headers: init?.headers as Record<string, string>, body: init?.body as string | undefined });
    return answer();
  }) as typeof fetch;
  return { api: createClient<Api>("http://app.test/", { ...options, fetch: fake }), sent };
}

const json = (value: unknown, status = 200, type = "application/json; charset=utf-8") => () => new Response(JSON.stringify(value), { status, headers: { "content-type": type } });

/** What a typia `createValidate` answers, for a check of `{ id: number; title: string }`. */
const postCheck: JsonCheck = (input) => {
  const value = input as { id?: unknown; title?: unknown };
  if (typeof value.id === "number" && typeof value.title === "string") return { success: true, data: input };
  return { success: false, errors: [{ path: "$input.title", expected: "string", value: value.title }] };
};

describe("what a call sends", () => {
  it("fills in and encodes the parameters (a catch-all keeps its slashes), the query, the headers and a JSON body", async () => {
    const { api, sent } = clientAnswering(json({ id: 1, title: "x", size: 3 }), { headers: { authorization: "Bearer k" } });
    await api.get("/api/posts/:id", { id: 7 }, { query: { tag: ["a b", "c"], page: 2 } });
    await api.get("/api/files/*rest", { rest: "docs/a b.md" });
    await api.post("/api/posts", { title: "Hello" }, { headers: { "x-request": "1" } });
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([
      "GET http://app.test/api/posts/7?tag=a+b&tag=c&page=2",
      "GET http://app.test/api/files/docs/a%20b.md",
      "POST http://app.test/api/posts",
    ]);
    expect(sent[2]?.body).toBe('{"title":"Hello"}');
    expect(sent[2]?.headers).toEqual({ accept: "application/json", authorization: "Bearer k", "x-request": "1", "content-type": "application/json" });
  });

  it("a parameter left out (past the types: from `any`) is refused before anything is sent", async () => {
    const { api, sent } = clientAnswering(json({}));
    await expect(api.get("/api/posts/:id", {} as { id: number })).rejects.toThrow('fw/client: /api/posts/:id needs the parameter "id".');
    expect(sent).toEqual([]);
  });
});

describe("what a call answers", () => {
  it("a 2xx JSON answer is the value; checked when the generated checks are given", async () => {
    expect(await clientAnswering(json({ id: 1, title: "x" })).api.get("/api/posts/:id", { id: 1 })).toEqual({ id: 1, title: "x" });
    const checked = clientAnswering(json({ id: 1, title: 5 }), { answers: { "GET /api/posts/:id": postCheck } });
    const error = await checked.api.get("/api/posts/:id", { id: 1 }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: "unexpected", status: 200, errors: [{ path: "$.title", expected: "string" }], message: "GET /api/posts/1 answered JSON that is not its handler's answer type: $.title: expected string." });
  });

  it("a 2xx that is not JSON is a RawAnswer, unless the route's check says JSON was promised", async () => {
    const text = () => new Response("hello", { status: 200, headers: { "content-type": "text/plain" } });
    expect(await clientAnswering(text).api.get("/api/plain")).toMatchObject({ raw: true, status: 200, text: "hello" });
    const promised = clientAnswering(text, { answers: { "GET /api/posts/:id": postCheck } });
    await expect(promised.api.get("/api/posts/:id", { id: 1 })).rejects.toMatchObject({ kind: "unexpected", message: "GET /api/posts/1 answered 200 text/plain, not the JSON its handler's type says." });
  });

  it("a refusal rejects with the problem it carries: fw's HTML problem page, application/problem+json, or the status alone", async () => {
    const page = `<!doctype html><html><body><main class="fw-problem" data-status="404"><h1>404 Not Found</h1><p class="fw-problem-detail">There is no post &quot;7&quot; &amp; no draft.</p><p class="fw-problem-instance"><code>/api/posts/7</code></p></main></body></html>`;
    const html = () => new Response(page, { status: 404, statusText: "Not Found", headers: { "content-type": "text/html; charset=utf-8" } });
    await expect(clientAnswering(html).api.get("/api/posts/:id", { id: 7 })).rejects.toMatchObject({
      kind: "refused",
      status: 404,
      problem: { type: "about:blank", title: "Not Found", status: 404, detail: 'There is no post "7" & no draft.', instance: "/api/posts/7" },
      message: 'GET /api/posts/7 answered 404 Not Found: There is no post "7" & no draft.',
    });
    const problem = json({ type: "about:blank", title: "Bad Request", status: 400, detail: "Bad body.", errors: [{ path: "$.title", expected: "string" }] }, 400, "application/problem+json");
    await expect(clientAnswering(problem).api.post("/api/posts", { title: "x" })).rejects.toMatchObject({ problem: { title: "Bad Request", detail: "Bad body.", errors: [{ path: "$.title", expected: "string" }] } });
    const bare = () => new Response("", { status: 503, statusText: "Service Unavailable" });
    await expect(clientAnswering(bare).api.get("/api/plain")).rejects.toMatchObject({ status: 503, problem: { title: "Service Unavailable", detail: "" } });
  });
});

describe("fw/client runs where plain fetch does", () => {
  it("its built modules import nothing but each other (no node: module, nothing of fw's server)", () => {
    const dir = resolve("dist/runtime/client");
    expect(existsSync(dir), "run `npm run build` first").toBe(true);
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".js"))) {
      const text = readFileSync(join(dir, file), "utf8");
      const imports = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1] ?? m[2]);
      expect(imports.every((specifier) => specifier !== undefined && /^\.\/[a-z-]+\.js$/.test(specifier)), `${file} imports ${imports.join(", ")}`).toBe(true);
    }
  });
});
