import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { HttpApp, Ok, Route, RouteTable } from "../../runtime/index.js";
import { bootExample, exampleCwd, exampleDatabase } from "../support/example.js";
import { runNode } from "../support/process.js";
import { PRODUCTION_ENV, TEST_SECRET } from "../support/serve.js";

// These run the example as `npm start` does: its output as tspc built it (npm test builds first).
const main = resolve("example/dist/main.js");

const run = (args: string[], env: Record<string, string | undefined> = {}, cwd = process.cwd()) => runNode(main, args, env, cwd);
// Booted with a migrated database and a working directory of their own (spec/support/example.ts).
const database = exampleDatabase();
const boot = (args: string[], env: Record<string, string>, cwd?: string) => bootExample(args, env, { database, ...(cwd === undefined ? {} : { cwd }) });

describe("1 HttpApp commands", () => {
  it("`routes` prints method, path, handler, origin and kind in match order, and exits 0", async () => {
    const { code, out } = await run(["routes"]);
    expect(code).toBe(0);
    const lines = out.trim().split("\n");
    expect(lines[0]).toMatch(/^METHOD\s+PATH\s+HANDLER\s+ORIGIN\s+KIND/);
    const rows = lines.slice(1).filter((line) => !line.startsWith("warning: ") && !line.startsWith("note: "));
    expect(rows.map((line) => line.split(/\s+/).slice(0, 2).join(" "))).toEqual([
      "GET /api/posts/:id",
      "GET /api/entries",
      "POST /api/entries",
      "GET /api/posts",
      // a program with a per-user token that has the scope posts:write (issue 42)
      "POST /api/posts",
      "WS /chat/socket",
      // a live page: its GET, and the POST of its form without JavaScript
      "GET /notes/quick",
      "POST /notes/quick",
      "GET /guestbook/:id",
      // the admin's delete of an entry (issue 41: an administrator removes anyone's entry)
      "DELETE /guestbook/:id",
      "GET /docs/*rest",
      "GET /about",
      "GET /chat",
      "POST /chat",
      "GET /guestbook",
      "POST /guestbook",
      "GET /",
      ...["GET /comments", "GET /comments/new", "GET /comments/:id", "GET /comments/:id/edit", "GET /comments/:id/delete", "POST /comments", "PUT /comments/:id", "DELETE /comments/:id"],
      // a comment's attachment (issue 40), served through its row by the row's read rule
      "GET /comments/:id/attachment/:fileKey",
      ...["GET /notes", "GET /notes/new", "GET /notes/:id", "GET /notes/:id/edit", "POST /notes", "PUT /notes/:id"],
      ...["GET /posts", "GET /posts/new", "GET /posts/:id", "GET /posts/:id/edit", "GET /posts/:id/delete", "POST /posts", "PUT /posts/:id", "DELETE /posts/:id"],
      // a post's cover, and its variants (thumb, large)
      ...["GET /posts/:id/cover/:fileKey", "GET /posts/:id/cover/:fileKey/:variant"],
      // the search behind the comment form's post picker (a model others point at)
      "GET /fw/pick/posts",
      // the tags (issue 43, item 9): read by all, written by admins; the search behind the post form's tag picker
      ...["GET /tags", "GET /tags/new", "GET /tags/:id", "GET /tags/:id/edit", "GET /tags/:id/delete", "POST /tags", "PUT /tags/:id", "DELETE /tags/:id"],
      "GET /fw/pick/tags",
      // the back office (issue 41, src/admin.ts): its front page, every page of each model it lists
      // (the files of a model with file fields), the users, the audit log; an example without
      // teams has no teams section
      "GET /admin",
      ...["posts", "comments", "notes", "entries"].flatMap((model) => {
        const pages = [`GET /admin/${model}`, `GET /admin/${model}/new`, `GET /admin/${model}/:id`, `GET /admin/${model}/:id/edit`, `GET /admin/${model}/:id/delete`, `POST /admin/${model}`, `PUT /admin/${model}/:id`, `DELETE /admin/${model}/:id`];
        if (model === "posts") return [...pages, "GET /admin/posts/:id/cover/:fileKey", "GET /admin/posts/:id/cover/:fileKey/:variant"];
        return model === "comments" ? [...pages, "GET /admin/comments/:id/attachment/:fileKey"] : pages;
      }),
      ...["GET /admin/users", "GET /admin/users/:id", "POST /admin/users/:id/grant", "POST /admin/users/:id/revoke", "POST /admin/users/:id/lock", "POST /admin/users/:id/unlock", "POST /admin/users/:id/sign-out"],
      "GET /admin/audit",
      // the post picker's script, and the upload progress script of file forms
      ...["GET /fw/picker.js", "GET /fw/upload.js"],
      // the code page of two-step sign-in (issue 42) after the password's
      ...["GET /login", "POST /login", "GET /login/code", "POST /login/code", "POST /logout"],
      // passkeys (issue 42): fw's browser script, making them on /account, signing in with one
      ...["GET /fw/passkeys.js", "POST /account/passkeys/options", "POST /account/passkeys", "POST /account/passkeys/remove", "POST /login/passkey/options", "POST /login/passkey"],
      // fw/auth's account flows: the example's sign-in has a mailer (issue 32)
      ...["GET /password/forgot", "POST /password/forgot", "GET /password/reset", "POST /password/reset", "GET /confirm", "POST /confirm"],
      ...["GET /account", "POST /account/password", "POST /account/email", "GET /account/email/confirm", "POST /account/email/confirm", "POST /account/sign-out-everywhere", "POST /account/delete"],
      // "Download my data" (issue 41): asked for on /account, downloaded through the mailed link's page
      ...["POST /account/data", "GET /account/data/:id", "POST /account/data/:id"],
      // per-user API tokens and two-step sign-in on /account (issue 42)
      ...["POST /account/tokens", "POST /account/tokens/revoke", "POST /account/two-step", "POST /account/two-step/confirm", "POST /account/two-step/disable"],
      ...["GET /signup", "POST /signup"],
      // fw/live's endpoints after the table (spec 4.6): each live page's socket, then the client
      ...["WS /fw/live/notes.quick.Index", "WS /fw/live/chat.Index", "WS /fw/live/posts.Index", "GET /fw/live.js"],
    ]);
    // The live posts index replaces the derived Index alone, in its place, and `routes` says so:
    // a deliberate override (the derived page's very path) is a note, not a warning (issue 28 item 12).
    expect(out).toMatch(/GET\s+\/posts\s+src\/app\/posts\/Index\.tsx\s+Handwritten\s+browser/);
    expect(lines.filter((line) => line.startsWith("warning: "))).toEqual([]);
    expect(lines.filter((line) => line.startsWith("note: "))).toEqual([
      "note: GET /posts (from src/app/posts/Index.tsx) overrides the derived Index page GET /posts (from src/models/Post.ts), in its place; the model's other pages still link to it.",
    ]);
    expect(out).toMatch(/GET\s+\/posts\/new\s+src\/models\/Post\.ts\s+Resource\s+browser/);
    expect(out).toMatch(/GET\s+\/api\/entries\s+src\/app\/api\/entries\/Index\.ts\s+Handwritten\s+api/);
  });

  it("`openapi` prints the example's OpenAPI 3.1 document: docs/reference/example-openapi.json as checked in, and it passes the validator", async () => {
    const { code, out, err } = await run(["openapi"]);
    expect([code, err]).toEqual([0, ""]);
    const checkedIn = readFileSync(resolve("docs/reference/example-openapi.json"), "utf8");
    expect(`${out.trimEnd()}\n`, "docs/reference/example-openapi.json is stale: after `npm run build`, run `cd example && node dist/main.js openapi --out ../docs/reference/example-openapi.json`").toBe(checkedIn);
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(checkedIn) as Record<string, unknown>);
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    expect([result.valid, validator.version]).toEqual([true, "3.1"]);
    expect(Object.keys((JSON.parse(checkedIn) as { paths: object }).paths)).toEqual(["/api/posts/{id}", "/api/entries", "/api/posts"]);
  });

  it("an unknown command prints the usage on stderr and exits 2", async () => {
    const { code, out, err } = await run(["serve-please"]);
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toContain('unknown command "serve-please"');
    expect(err).toContain("usage:");
  });

  it("booting without FW_SECRET refuses, saying how to set it", async () => {
    const { code, err } = await run([]);
    expect(code).toBe(1);
    expect(err).toContain("FW_SECRET is not set");
    expect(err).toContain("export FW_SECRET=");
  });

  it("booting with a short FW_SECRET refuses", async () => {
    const { code, err } = await run([], { FW_SECRET: "short" });
    expect(code).toBe(1);
    expect(err).toMatch(/FW_SECRET is too short.*at least 32/);
  });

  it("boots with FW_SECRET: a banner with the URL, one access-log line per request, SIGTERM → exit 0", async () => {
    const app = boot([], { ...PRODUCTION_ENV });
    const url = await app.url;
    expect((await fetch(`${url}/guestbook?secret=hidden`)).status).toBe(200);
    expect((await fetch(`${url}/nowhere`)).status).toBe(404);
    app.child.kill("SIGTERM");
    expect(await app.exited).toBe(0);
    const { out } = app.output();
    expect(out).toMatch(/^fw: serving 136 routes on http:\/\/127\.0\.0\.1:\d+\n/);
    expect(out).toMatch(/\nGET \/guestbook 200 \d+\.\dms\n/);
    expect(out).toMatch(/\nGET \/nowhere 404 \d+\.\dms\n/);
    expect(out).not.toContain("hidden"); // the query is never logged
  });

  it("`dev` boots without FW_SECRET on a random secret kept under .fw/, so sessions survive restarts", async () => {
    const cwd = exampleCwd();
    const first = boot(["dev"], { FW_SECRET: "" }, cwd);
    const url = await first.url;
    const page = await fetch(`${url}/guestbook`);
    const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] as string;
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(first.output().err).toContain(".fw/dev-secret");
    expect(readFileSync(join(cwd, ".fw", "dev-secret"), "utf8").trim().length).toBeGreaterThanOrEqual(43);

    const second = boot(["dev"], { FW_SECRET: "" }, cwd);
    const again = await fetch(`${await second.url}/guestbook`, { headers: { cookie } });
    expect(/name="_csrf" value="([^"]+)"/.exec(await again.text())?.[1]).toBe(token);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    expect(second.output().err).not.toContain("dev-secret"); // no second notice
  });
});

describe("1 Graceful shutdown", () => {
  it("SIGTERM stops accepting, lets an in-flight request finish with its full body, then main resolves 0", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((open) => (release = open));
    let entered: () => void = () => {};
    const inside = new Promise<void>((open) => (entered = open));
    const app = new HttpApp({
      secret: TEST_SECRET,
      port: 0,
      accessLog: false,
      allowedHosts: ["*"],
      routes: RouteTable.of(
        Route.get("/slow", async () => {
          entered();
          await gate;
          return Ok("z".repeat(100_000));
        }),
      ),
    });
    const lines: string[] = [];
    app.console = { out: (line) => lines.push(line), err: (line) => lines.push(line) };
    const exit = app.main([]);
    await waitFor(() => lines.some((line) => line.includes("serving")));
    const url = /on (http:\S+)/.exec(lines.join("\n"))?.[1] as string;
    const slow = fetch(`${url}/slow`);
    await inside;
    process.emit("SIGTERM");
    await waitFor(() => lines.some((line) => line.includes("stopping")));
    await expect(fetch(`${url}/slow`)).rejects.toThrow(); // no new connections
    release();
    const response = await slow;
    expect(response.headers.get("connection")).toBe("close");
    expect(await response.text()).toHaveLength(100_000);
    expect(await exit).toBe(0);
  });

  it("sets Node's slow-client timeouts", async () => {
    const app = new HttpApp({ secret: TEST_SECRET, routes: RouteTable.empty, accessLog: false, allowedHosts: ["*"] });
    app.console = { out: () => {}, err: () => {} };
    const running = await app.serve({ port: 0 });
    try {
      expect(running.server.headersTimeout).toBe(20_000);
      expect(running.server.requestTimeout).toBe(60_000);
      expect(running.server.keepAliveTimeout).toBe(5_000);
    } finally {
      await running.close();
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!condition()) throw new Error("timed out waiting");
}
