import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDevHook } from "../../runtime/dev/in-app.js";
import { FromPath, HttpApp, Route, RouteTable, type ModelSpec, type RunningServer, type Validation } from "../../runtime/index.js";
import { live, livePageRoutes, liveClientRoute, liveSocketRoute, type FormInput, type LiveMount, type LiveValues } from "../../runtime/live/index.js";
import type { FormErrors } from "../../runtime/resource/form-errors.js";
import { cspViolations, refusedInlineScript, waitUntil, watchCsp } from "../support/browser-pages.js";
import { CHROMIUM_ARGS } from "../support/chromium.js";
import { fakeSupervisor } from "../support/fake-supervisor.js";
import { TEST_SECRET } from "../support/serve.js";

// fw/live's client against a real server: a hand-written live page (a counter, a form that
// checks as the user types and saves, a handler that throws) served on 127.0.0.1 and driven in
// headless Chromium. The server is stopped and a new one started on the same port mid-test.
// Then the same page in dev: the reload client and fw's dev pages, under the policy. Every page
// runs under fw's default Content-Security-Policy, and none may break it.
const found = inject("chromium");
const CHROMIUM = "path" in found ? found.path : undefined;

interface Note {
  id: number;
  title: string;
  body: string;
}

/** What typia would check: a title of at least 3 characters. */
function validate(input: unknown): Validation<Note> {
  const draft = input as Partial<Note>;
  if (typeof draft.title === "string" && draft.title.length < 3) return { success: false, errors: [{ path: "$input.title", expected: "string & MinLength<3>", value: draft.title }] };
  return { success: true, data: draft as Note };
}

const NOTE: ModelSpec<Note> = {
  name: "Note",
  fqn: "models.Note",
  path: "/notes",
  key: "id",
  fields: [
    { name: "title", label: "Title", input: "text", optional: false, describe: "text" },
    { name: "body", label: "Body", input: "textarea", optional: true, describe: "text" },
  ],
  validate,
  decodeKey: FromPath.int,
};

interface State {
  readonly count: number;
  readonly draft: Readonly<Record<string, string>>;
  readonly errors: FormErrors | undefined;
  readonly saved: readonly string[];
}

/** The form's text as the user typed it, from what a form event carries. */
const typed = (input: FormInput<Omit<Note, "id">>): Record<string, string> =>
  input.ok ? { title: input.draft.title ?? "", body: input.draft.body ?? "" } : { ...input.values };

const page = live<State>({
  mount: () => ({ count: 0, draft: {}, errors: undefined, saved: [] }),
  render: (state, view) => (
    <section>
      <title>Notes</title>
      <p id="count">Count: {state.count}</p>
      <button type="button" id="inc" fw-click="increment" fw-value-by="2">+2</button>
      <button type="button" id="boom" fw-click="boom">Fail</button>
      {view.form("save", { values: state.draft, errors: state.errors, change: "check" })}
      <ul id="saved">
        {state.saved.map((title) => <li>{title}</li>)}
      </ul>
    </section>
  ),
  events: {
    increment: (state, values: LiveValues) => ({ ...state, count: state.count + Number(values["by"] ?? 1) }),
    boom: () => {
      throw new Error("the boom handler failed");
    },
    check: (state, input: FormInput<Omit<Note, "id">>) => ({ ...state, draft: typed(input), errors: input.ok ? undefined : input.errors }),
    save: (state, input: FormInput<Omit<Note, "id">>) =>
      input.ok ? { ...state, saved: [...state.saved, input.draft.title ?? ""], draft: {}, errors: undefined } : { ...state, draft: typed(input), errors: input.errors },
  },
});

const MOUNT: LiveMount<Record<string, never>> = {
  id: "notes.Index",
  path: "/notes",
  capabilities: {},
  forms: { save: NOTE, check: NOTE },
  source: "spec/live/client-browser.test.tsx",
};

/** A fresh server for the page, on `port` (0: any); in dev with `supervisor` as `fw dev`. */
async function start(port: number, supervisor?: ReturnType<typeof fakeSupervisor>): Promise<RunningServer> {
  const routes = new RouteTable([
    ...livePageRoutes(page, MOUNT),
    liveSocketRoute(page, MOUNT),
    liveClientRoute(),
    Route.get("/throws", () => {
      throw new Error("the /throws handler failed");
    }),
  ]);
  const app = new HttpApp({ secret: TEST_SECRET, routes, allowedHosts: ["127.0.0.1", "localhost"] });
  app.console = { out: () => {}, err: () => {} }; // the boom handler's error line is expected
  const dev = supervisor === undefined ? { dev: false } : { dev: true, devHook: createDevHook(supervisor) };
  return app.serve({ port, host: "127.0.0.1", accessLog: false, ...dev });
}

/** A context whose CSP violations are recorded, and whose pages count the reload sockets they opened (`fwReloadOpen`). */
async function watchedContext(on: Browser): Promise<BrowserContext> {
  const context = await on.newContext();
  await watchCsp(context);
  await context.addInitScript(`(() => {
    window.fwReloadOpen = 0;
    const Native = WebSocket;
    window.WebSocket = class extends Native {
      constructor(url, protocols) {
        super(url, protocols);
        if (String(url).includes("/fw/reload")) this.addEventListener("open", () => window.fwReloadOpen++);
      }
    };
  })();`);
  return context;
}

let server: RunningServer | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (CHROMIUM === undefined) return; // skipped below
  [server, browser] = await Promise.all([start(0), chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const status = (tab: Page, value: string) => tab.waitForSelector(`[data-fw-live][data-fw-status="${value}"]`);
const text = async (tab: Page, selector: string) => (await tab.textContent(selector))?.trim();
const run = <T,>(tab: Page, js: string): Promise<T> => tab.evaluate(js) as Promise<T>;

describe.skipIf(CHROMIUM === undefined)("fw/live's client against a real server (Chromium)", () => {
  it("clicks, validates as the user types, submits, survives a restart and shows a failing handler", async () => {
    if (browser === undefined || server === undefined) throw new Error("beforeAll did not start the browser and the server");
    const tab = await (await watchedContext(browser)).newPage();
    let loads = 0;
    tab.on("load", () => loads++);
    const response = await tab.goto(`${server.url}/notes`);
    expect(response?.status()).toBe(200);
    await status(tab, "open");
    await run(tab, "window.stillHere = true");

    // Click: the count changes in place, without a page load.
    await tab.click("#inc");
    await waitUntil(tab, `document.getElementById("count").textContent === "Count: 2"`);

    // Typing: the check event shows the problem beside the field; the field keeps focus and text.
    await tab.click("#note-title");
    await tab.keyboard.type("ab");
    await tab.waitForSelector(".fw-field-error");
    expect(await text(tab, ".fw-field-error")).toContain("Title");
    expect(await run<unknown[]>(tab, `[document.activeElement.id, document.activeElement.value]`)).toEqual(["note-title", "ab"]);
    await tab.keyboard.type("c");
    await tab.waitForSelector(".fw-field-error", { state: "detached" });
    expect(await run<unknown[]>(tab, `[document.activeElement.id, document.activeElement.value]`)).toEqual(["note-title", "abc"]);

    // Submit: saved over the socket, the form emptied, still no page load.
    await tab.click("form.fw-form [type=submit]");
    await waitUntil(tab, `document.querySelector("#saved li")?.textContent === "abc"`);
    expect(await run<string>(tab, `document.getElementById("note-title").value`)).toBe("");
    expect(await run<boolean>(tab, "window.stillHere")).toBe(true);

    // A restart: the page says it lost the server, comes back on the new one, mounts again and
    // re-sends what the user had typed (the problem beside the field is shown again).
    await tab.fill("#note-title", "xy");
    await tab.waitForSelector(".fw-field-error");
    await tab.click("#count"); // leave the field: the re-mount's render shows it as the server has it
    const port = server.port;
    await server.close();
    await status(tab, "closed");
    server = await start(port);
    await status(tab, "open");
    await tab.waitForSelector(".fw-field-error");
    expect(await run<string>(tab, `document.getElementById("note-title").value`)).toBe("xy");
    expect(await text(tab, "#count")).toBe("Count: 0");
    await tab.click("#inc");
    await waitUntil(tab, `document.getElementById("count").textContent === "Count: 2"`);

    // A handler that throws: a banner above the root, the socket kept; the next click works and clears it.
    await tab.click("#boom");
    const banner = await tab.waitForSelector(".fw-live-error[role=alert]");
    expect(await banner.textContent()).toMatch(/Something went wrong|boom/);
    await tab.click("#inc");
    await waitUntil(tab, `document.getElementById("count").textContent === "Count: 4"`);
    expect(await tab.$(".fw-live-error")).toBeNull();
    expect(await run<boolean>(tab, "window.stillHere")).toBe(true);
    expect(loads).toBe(1);
    await tab.close();
  });

  it("dev: the reload client runs under the policy (its hash), reloads into a broken build's page and out of it; fw's dev pages show as meant", async () => {
    if (browser === undefined) throw new Error("beforeAll did not start the browser");
    const supervisor = fakeSupervisor();
    const dev = await start(0, supervisor);
    try {
      const tab = await (await watchedContext(browser)).newPage();
      const response = await tab.goto(`${dev.url}/notes`);
      expect(response?.headers()["content-security-policy"]).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*';/);
      await status(tab, "open");
      await waitUntil(tab, "window.fwReloadOpen === 1"); // the inline reload client ran, and its socket is open

      // A failed build: the client reloads the page, which now lists the diagnostics, wrapped by inline styles.
      let loaded = tab.waitForEvent("load");
      supervisor.tell({ fw: "dev", type: "build-failed", diagnostics: [{ file: "src/app/notes/Index.tsx", line: 3, column: 7, code: "TS2322", category: "error", message: "Type 'string' is not assignable to type 'number'." }] });
      await loaded;
      expect(await text(tab, "h1")).toBe("500 Internal Server Error");
      expect(await text(tab, ".fw-build-message")).toBe("Type 'string' is not assignable to type 'number'.");
      expect(await run<string>(tab, `getComputedStyle(document.querySelector(".fw-build-message")).whiteSpace`)).toBe("pre-wrap");

      // Fixed: the client (in the diagnostics page too) reloads back to the page.
      await waitUntil(tab, "window.fwReloadOpen === 1");
      loaded = tab.waitForEvent("load");
      supervisor.tell({ fw: "dev", type: "build-fixed" });
      await loaded;
      await status(tab, "open");
      expect(await text(tab, "#count")).toBe("Count: 0");

      // A dev 500 shows where it was thrown and the stack, wrapped the same way.
      expect((await tab.goto(`${dev.url}/throws`))?.status()).toBe(500);
      expect(await run<string>(tab, `getComputedStyle(document.querySelector(".fw-problem-trace")).whiteSpace`)).toBe("pre-wrap");
      await waitUntil(tab, "window.fwReloadOpen === 1");

      // Nothing on the way broke the policy, in dev or in production (the test above); and only
      // fw's own inline script is allowed: another is refused.
      expect(cspViolations).toEqual([]);
      expect(await refusedInlineScript(tab)).toBe("script-src-elem");
    } finally {
      await dev.close();
    }
  });
});
