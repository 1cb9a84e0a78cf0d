import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { appDatabase } from "../../runtime/db/open.js";
import { CookieJar, formsOf, refusalOf, startApp, testFile, type TestApp } from "../../runtime/testing/index.js";
import { png } from "../files/support.js";
import { pickForm } from "../../runtime/testing/forms.js";
import { Form, FormErrors, FromPath, renderHtml, type ModelSpec } from "../../runtime/index.js";
import { postgresBin, startCluster } from "../support/postgres.js";

// fw/testing against the example as built (`npm run build`): each test's app is its own process.
// It runs in example/, as `npm start` does, where its migrations are: each app migrates its fresh database.
const EXAMPLE = { cwd: resolve("example"), main: "dist/main.js" };
const EMAIL = "tester@example.com";
const PASSWORD = "plum orbit velvet 9271";

const started: TestApp[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.close()));
});

async function example(): Promise<TestApp> {
  const app = await startApp(EXAMPLE);
  started.push(app);
  return app;
}

describe("fw/testing: startApp and its client", () => {
  it("signs up and in through the forms (CSRF token read from the page, session kept in the jar) and reaches a guarded page", async () => {
    const app = await example();
    const visitor = app.client();
    expect((await visitor.get("/chat")).status).toBe(303); // guarded: nobody signed in yet
    // The example confirms emails: signUp follows the link it mailed (read from the test's
    // mailbox), which makes the account and signs in (issue 32).
    const signedUp = await visitor.signUp(EMAIL, PASSWORD);
    expect(signedUp.status).toBe(303);
    expect(signedUp.location).toBe("/");
    expect((await app.mails({ to: EMAIL })).map((mail) => mail.subject)).toEqual(["Confirm your email"]);
    const signedIn = await visitor.signIn(EMAIL, PASSWORD);
    expect(signedIn.status).toBe(303);
    const chat = await visitor.get("/chat");
    expect(chat.status).toBe(200);
    // Another visitor has a jar of its own.
    expect((await app.client().get("/chat")).status).toBe(303);
    await visitor.signOut();
    expect((await visitor.get("/chat")).status).toBe(303);
  });

  it("a wrong password is a failed sign-in, said plainly, with what the page said", async () => {
    const app = await example();
    const visitor = app.client();
    await visitor.signUp(EMAIL, PASSWORD);
    await expect(visitor.signIn(EMAIL, "not the password at all")).rejects.toThrow("fw/testing: signing in as tester@example.com failed: POST /login answered 422: Email or password is wrong.");
    // Issue 28, item 15: a form answered 422 says which fields were refused and why, read from the page.
    const refused = await visitor.submit("/guestbook", { name: "", message: "" });
    expect(refused.status).toBe(422);
    expect(refused.refusal()).toEqual({ fields: { name: "Name is required.", message: "Message is required." }, alerts: [] });
    expect(refused.summary()).toBe("POST /guestbook answered 422: name: Name is required.; message: Message is required.");
    const signedUp = await app.client().submit("/signup", { email: "short@example.com", password: "short" });
    expect([signedUp.status, Object.keys(signedUp.refusal().fields)]).toEqual([422, ["password"]]);
    expect((await visitor.submit("/guestbook", { name: "Ann", message: "hello" })).summary()).toBe("POST /guestbook answered 303 to /guestbook");
    expect((await visitor.post("/guestbook", { name: "Ann", message: "hello" })).summary()).toMatch(/^POST \/guestbook answered 403: .*CSRF/);
  });

  it("shares nothing between tests: the account of the test before does not exist in a new app", async () => {
    const app = await example();
    await expect(app.client().signIn(EMAIL, PASSWORD)).rejects.toThrow(/failed/);
  });

  it("a form post without the page's token is refused (403): submit is what sends it", async () => {
    const app = await example();
    const visitor = app.client();
    expect((await visitor.post("/signup", { email: EMAIL, password: PASSWORD })).status).toBe(403);
    expect((await visitor.submit("/signup", { email: EMAIL, password: PASSWORD })).status).toBe(303);
  });

  it("keeps each app's uploads in a folder of its own: a post's cover never lands in the app's .fw/files, which `npm start` keeps", async () => {
    const app = await example();
    const author = app.client();
    await author.signUp(EMAIL, PASSWORD);
    const made = await author.submit("/posts/new", { title: "Covered", body: "b", category: "news", published: "true", cover: testFile("c.png", png(4, 4), "image/png") });
    expect(made.status, made.summary()).toBe(303);
    const key = /\/cover\/([0-9a-f]{32})\/large/.exec((await author.get(made.location as string)).text)?.[1] as string;
    expect((await author.get(`${made.location}/cover/${key}`)).status).toBe(200);
    expect(existsSync(resolve("example/.fw/files", key.slice(0, 2), key))).toBe(false);
  });

  it("an app that cannot boot rejects with its output", async () => {
    await expect(startApp({ cwd: resolve("."), main: "example/dist/missing.js" })).rejects.toThrow(/exited before serving/);
  });
});

describe("a fresh embedded database per test", () => {
  it("fw/db opens DATABASE_URL=pglite:DIR over the app's own directory (what startApp gives each app)", () => {
    expect(appDatabase({ cwd: "/app", env: { DATABASE_URL: "pglite:/tmp/fw-test-1/db" }, directory: "data" }).description).toBe("PGlite at /tmp/fw-test-1/db");
    expect(appDatabase({ cwd: "/app", env: {} }).description).toBe("PGlite at /app/.fw/db");
  });
});

describe("fw/testing's cookie jar and form reader", () => {
  it("replaces a cookie by name, drops an expired one, and sends the rest", () => {
    const jar = new CookieJar();
    jar.take(["fw_session=a; Path=/; HttpOnly", "other=1"]);
    jar.take(["fw_session=b; Path=/"]);
    expect(jar.header()).toBe("fw_session=b; other=1");
    jar.take(["other=; Max-Age=0"]);
    expect(jar.header()).toBe("fw_session=b");
  });

  it("reads a form's action, method and carried fields (hidden, prefilled, checked), unescaped", () => {
    const html = `<form method="post" action="/posts/7?x=1&amp;y=2"><input type="hidden" name="_method" value="PUT"><input type="hidden" name="_csrf" value="t0k"><input name="title" value="A &amp; B"><input type="checkbox" name="done" checked><input type="checkbox" name="no"><input type="password" name="password" value="x"><textarea name="body">1 &lt; 2</textarea><button>Save</button></form>`;
    expect(formsOf(html, "/posts/7/edit")).toEqual([
      { action: "/posts/7?x=1&y=2", method: "post", fields: { _method: "PUT", _csrf: "t0k", title: "A & B", done: "on", body: "1 < 2" }, names: ["_method", "_csrf", "title", "done", "no", "password", "body"], multipart: false },
    ]);
    expect(formsOf(`<form><input name="q"><select name="kind"><option>a</option></select></form>`, "/search")).toEqual([{ action: "/search", method: "get", fields: { q: "", kind: "a" }, names: ["q", "kind"], multipart: false }]);
  });

  // A derived form's select (a reference pre-selected by /comments/new?post=7, an edit form's
  // category) was left out of what submit sent: a browser sends the chosen option, so
  // submit("/comments/new?post=7", { body }) answered 422 "Post is required.".
  it("reads the option each select sends: the selected one, else the first not disabled; none from an empty select", () => {
    const html = `<form method="post" action="/comments"><input type="hidden" name="_csrf" value="t">`
      + `<select id="comment-post" name="post" required><option value="">Choose…</option><option value="7" selected>Hello &amp; welcome</option><option value="8">Other</option></select>`
      + `<select name="category"><option value="news">news</option><option value="howto">howto</option></select>`
      + `<select name="first"><option value="x" disabled>x</option><option>Plain &amp; text</option></select>`
      + `<select name="none"></select><select name="many" multiple><option value="a">a</option></select>`
      + `<select name="label"><option value="selected">a value, not the flag</option><option value="b" selected>b</option></select>`
      + `<button>Create</button></form>`;
    expect(formsOf(html, "/comments/new")).toEqual([
      { action: "/comments", method: "post", fields: { _csrf: "t", post: "7", category: "news", first: "Plain & text", label: "b" }, names: ["_csrf", "post", "category", "first", "none", "many", "label"], multipart: false },
    ]);
    const choosing = `<form method="post" action="/comments"><select name="post" required><option value="" selected>Choose…</option><option value="7">Hello</option></select></form>`;
    expect(formsOf(choosing, "/comments/new")[0]?.fields).toEqual({ post: "" });
  });

  it("reads a refused form's fields and messages from fw's own markup (aria-invalid, aria-describedby) and the page's alerts", () => {
    interface Task {
      id: number;
      title: string;
      due: string;
      notes: string;
    }
    const model: ModelSpec<Task> = {
      name: "Task",
      fqn: "models.Task",
      path: "/tasks",
      key: "id",
      fields: [
        { name: "title", label: "Title", input: "text", optional: false, describe: "text" },
        { name: "due", label: "Due", input: "date", optional: false, describe: "a date (YYYY-MM-DD)" },
        { name: "notes", label: "Notes", input: "textarea", optional: true, describe: "text" },
      ],
      validate: (input) => ({ success: true, data: input as Task }),
      decodeKey: FromPath.int,
    };
    const errors = new FormErrors([
      { field: "title", kind: "required", message: "Title is required." },
      { field: "due", kind: "unreadable", message: "Due could not be read as a date (YYYY-MM-DD)." },
      { field: "due", kind: "invalid", message: "Due must be <later> & sooner." },
    ]);
    const html = renderHtml(new Form(model).render({ action: "/tasks", method: "POST", csrf: "t", errors, message: "That task \"exists\" already." }));
    expect(refusalOf(html)).toEqual({
      fields: { title: "Title is required.", due: "Due could not be read as a date (YYYY-MM-DD). Due must be <later> & sooner." },
      alerts: ['That task "exists" already.'],
    });
    expect(refusalOf(`<input name="x" aria-invalid="true"><p id="x-error">unrelated</p>`).fields).toEqual({ x: "(marked invalid; no message is tied to it with aria-describedby)" });
    expect(refusalOf(renderHtml(new Form(model).render({ action: "/tasks", method: "POST", csrf: "t" })))).toEqual({ fields: {}, alerts: [] });
  });

  // A page's form beside the layout's Sign out form: the tutorial's test once signed its user out.
  const page = `<form method="post" action="/logout"><input type="hidden" name="_csrf" value="t"><button>Sign out</button></form>`
    + `<form method="post" action="/tasks"><input type="hidden" name="_csrf" value="t"><input name="title"><select name="due"></select><button>Save</button></form>`
    + `<form method="get" action="/search"><input name="q"></form>`;

  it("submit's form is the one with a field for every name given, not the first with a token (the layout's Sign out)", () => {
    expect(pickForm(formsOf(page, "/tasks/new"), { title: "Water", due: "2030-01-31" }, "/tasks/new").action).toBe("/tasks");
    expect(pickForm(formsOf(page, "/tasks/new"), { title: "Water", _method: "PUT" }, "/tasks/new").action).toBe("/tasks");
    expect(pickForm(formsOf(page, "/tasks/new"), {}, "/tasks/new", "/logout").action).toBe("/logout");
  });

  it("submit refuses to guess: several forms that fit name their actions, and none that fits says so", () => {
    expect(() => pickForm(formsOf(page, "/tasks/new"), {}, "/tasks/new")).toThrow('/tasks/new has 2 forms that could take no fields (actions /logout, /tasks); pass { action: "/logout" } (or another) to pick one');
    expect(() => pickForm(formsOf(page, "/tasks/new"), { colour: "red" }, "/tasks/new")).toThrow("/tasks/new has no form with fields colour (forms: POST /logout, POST /tasks, GET /search); pass { action } to name the form");
    expect(() => pickForm(formsOf(page, "/tasks/new"), {}, "/tasks/new", "/nowhere")).toThrow("/tasks/new has no form with action /nowhere");
  });
});

describe("fw/testing gives each test's app an empty database", () => {
  const DB_APP = { cwd: resolve("spec/testing/app"), main: "main.mjs" };

  async function twoTests(): Promise<string[]> {
    const seen: string[] = [];
    for (const text of ["first", "second"]) {
      const app = await startApp(DB_APP);
      try {
        const visitor = app.client();
        expect((await visitor.get(`/add?text=${text}`)).text).toContain("added");
        seen.push((await visitor.get("/notes")).text, (await visitor.get("/engine")).text);
      } finally {
        await app.close();
      }
    }
    return seen;
  }

  it("embedded: a PGlite of its own in a temp directory, migrated by dev mode, removed on close", async () => {
    const [first, engine, second, other] = await twoTests();
    expect(first).toContain("notes: first");
    expect(second).toContain("notes: second"); // not "first,second": nothing carried over
    expect(engine).toMatch(/PGlite at .*fw-test-.*\/db/);
    expect(other).not.toBe(engine);
    expect(existsSync((/PGlite at (.*)/.exec(engine as string)?.[1] as string) ?? "/")).toBe(false);
  }, 120_000);

  const bin = postgresBin();
  it.skipIf(bin === undefined)("on DATABASE_URL: a database created on that server for the test, dropped on close", async () => {
    const cluster = await startCluster(bin as string);
    const saved = process.env["DATABASE_URL"];
    process.env["DATABASE_URL"] = cluster.url;
    try {
      const [first, engine, second] = await twoTests();
      expect(first).toContain("notes: first");
      expect(second).toContain("notes: second");
      expect(engine).toMatch(/PostgreSQL at .*\/fw_test_[0-9a-f]{12}/);
      const pg = (await import("pg")).default;
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      const left = await admin.query("SELECT datname FROM pg_database WHERE datname LIKE 'fw_test_%'");
      await admin.end();
      expect(left.rows).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env["DATABASE_URL"];
      else process.env["DATABASE_URL"] = saved;
      await cluster.destroy();
    }
  }, 120_000);
});
