import { readFileSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { FromPath, Json, JsonProblem, NotFound, Ok, Route, RouteTable, type ApiRequest } from "../../runtime/index.js";
import { CHROMIUM_ARGS } from "../support/chromium.js";
import { serve, type Served } from "../support/serve.js";

// Issue 31, item 5: fw/client is plain `fetch` and imports nothing at run time, so the module
// itself runs in a browser. The page loads runtime/client/client.ts as the browser gets it (types
// stripped, nothing bundled: an import of anything Node has would fail to resolve there) and
// calls a hand-built API: an answer, a refusal (fw's HTML problem page), a handler's
// problem+json, and an answer that is not what the generated check says, each read as typed.
const found = inject("chromium");
const CHROMIUM = "path" in found ? found.path : undefined;

let browser: Browser | undefined;
let app: Served | undefined;

/** fw/client's module as JavaScript, with its type imports erased, as tsc writes it into dist/. */
function clientModule(): string {
  const source = readFileSync(new URL("../../runtime/client/client.ts", import.meta.url), "utf8");
  return ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, verbatimModuleSyntax: true } }).outputText;
}

const JS = "text/javascript; charset=utf-8";
const PAGE = '<!doctype html><html lang="en"><head><title>fw/client</title><script type="module" src="/calls.js"></script></head><body></body></html>';

/** The page's script: calls the API through fw/client, then shows what it read in #seen. */
const CALLS = `
import { createClient, ApiError } from "/client.js";
// What .fw/api.ts's generated \`answers\` check holds (typia's validate of the answer type), by hand.
const note = (value) =>
  typeof value === "object" && value !== null && typeof value.id === "number"
    ? { success: true, data: value }
    : { success: false, errors: [{ path: "$input.id", expected: "number", value }] };
const api = createClient(location.origin, { answers: { "GET /api/notes/:id": note, "GET /api/odd": note } });
const failed = (error) =>
  error instanceof ApiError ? { kind: error.kind, status: error.status, title: error.problem?.title, detail: error.problem?.detail, errors: error.errors } : String(error);
const seen = {
  answer: await api.get("/api/notes/:id", { id: 7 }),
  missing: await api.get("/api/notes/:id", { id: 99 }).catch(failed),
  problem: await api.get("/api/gone").catch(failed),
  odd: await api.get("/api/odd").catch(failed),
  noNode: typeof process === "undefined" && typeof Buffer === "undefined",
};
const out = document.createElement("pre");
out.id = "seen";
out.textContent = JSON.stringify(seen);
document.body.append(out);
`;

beforeAll(async () => {
  if (CHROMIUM === undefined) return; // skipped below
  const notes = new Map([[7, { id: 7, text: "from the browser" }]]);
  const routes = RouteTable.of(
    Route.get("/", () => Ok(PAGE, { contentType: "text/html; charset=utf-8" })),
    Route.api({ method: "GET", path: "/client.js", handler: () => Ok(clientModule(), { contentType: JS }) }),
    Route.api({ method: "GET", path: "/calls.js", handler: () => Ok(CALLS, { contentType: JS }) }),
    Route.api({
      method: "GET",
      path: "/api/notes/:id",
      params: { id: FromPath.int },
      handler: (request: ApiRequest<{ id: number }>) => {
        const note = notes.get(request.params.id);
        if (note === undefined) throw new NotFound(`There is no note ${request.params.id}.`);
        return Json(note);
      },
    }),
    Route.api({ method: "GET", path: "/api/gone", handler: () => JsonProblem({ type: "about:blank", title: "Gone", status: 410, detail: "Notes moved." }) }),
    Route.api({ method: "GET", path: "/api/odd", handler: () => Json({ id: "seven" }) }),
  );
  [app, browser] = await Promise.all([serve({ routes }), chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })]);
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe.skipIf(CHROMIUM === undefined)("fw/client in a browser", () => {
  it("loads as a plain module under fw's CSP and reads answers, refusals and answers that are not their type with fetch", async () => {
    const page = await (browser as Browser).newPage();
    // An error the page's script throws ends the wait for #seen (a module that does not resolve, an import of Node's, leaves #seen absent: the wait fails).
    // (The console's "Failed to load resource" lines for the 4xx answers are the browser's own, not errors of the page.)
    const failed = new Promise<string>((settle) => page.on("pageerror", (error) => settle(`page error: ${error.message}`)));
    await page.goto(`${(app as Served).url}/`);
    const shown = await Promise.race([page.locator("#seen").textContent(), failed]);
    expect(JSON.parse(shown ?? "null")).toEqual({
      answer: { id: 7, text: "from the browser" },
      missing: { kind: "refused", status: 404, title: "Not Found", detail: "There is no note 99.", errors: [] },
      problem: { kind: "refused", status: 410, title: "Gone", detail: "Notes moved.", errors: [] },
      odd: { kind: "unexpected", status: 200, errors: [{ path: "$.id", expected: "number" }] },
      noNode: true,
    });
    await page.close();
  });
});
