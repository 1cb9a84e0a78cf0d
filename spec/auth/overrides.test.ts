import { describe, expect, it } from "vitest";
import { PRODUCTION_ENV } from "../support/serve.js";
import { servedFixture } from "../support/tspc.js";
import { Browser, freshEmail, PASSWORD } from "./client.js";

// Issue 39, item 1: safe by default. The fixture (spec/fixtures/auth-overrides) names no `auth`
// plugin option: importing fw/auth is what turns the checks on. It replaces every derived page
// of an owned model (Task) with a handwritten one that declares no guard, adds new pages and API
// routes asking for the model's store, and overrides Post's Show with a guard of its own.
const fixture = servedFixture("auth-overrides", { ...PRODUCTION_ENV });
let address = 0;

function browser(): Browser {
  return new Browser(fixture.url, { "x-forwarded-for": `10.1.0.${++address}` });
}

async function signedUp(name: string): Promise<Browser> {
  const visitor = browser();
  expect((await visitor.signUp(freshEmail(name), PASSWORD)).status).toBe(303);
  return visitor;
}

/** Creates a task through the overriding Create and answers its id. */
async function task(owner: Browser, title: string): Promise<string> {
  await owner.get("/login");
  const made = await owner.post("/tasks", { title });
  expect(made.status, made.html).toBe(200);
  return /created (\d+)/.exec(made.html)?.[1] as string;
}

describe("39.1 A handwritten page in a derived page's place keeps its model's guard and row scoping", () => {
  it("with nobody signed in, every overriding page of an owned model sends to sign-in, as the derived pages did", async () => {
    const visitor = browser();
    for (const path of ["/tasks", "/tasks/new", "/tasks/1", "/tasks/1/edit", "/tasks/1/delete"]) {
      const answer = await visitor.get(path);
      expect(answer.status, path).toBe(303);
      expect(answer.location, path).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    await visitor.get("/login");
    for (const [path, method] of [["/tasks", undefined], ["/tasks/1", "PUT"], ["/tasks/1", "DELETE"]] as const) {
      const answer = await visitor.post(path, { title: "x", ...(method === undefined ? {} : { _method: method }) });
      expect(answer.status, `${method ?? "POST"} ${path}`).toBe(303);
      expect(answer.location).toBe("/login");
    }
  });

  it("another user's row is not found on every overriding page, and stays as it was; its owner reads, changes and deletes it", async () => {
    const ann = await signedUp("ann");
    const bob = await signedUp("bob");
    const id = await task(ann, "ann's secret");
    await task(bob, "bob's chore");
    for (const path of [`/tasks/${id}`, `/tasks/${id}/edit`, `/tasks/${id}/delete`]) {
      expect((await bob.get(path)).status, path).toBe(404);
    }
    expect((await bob.get("/tasks")).html).toBe("index 1: bob's chore");
    await bob.get("/login");
    expect((await bob.post(`/tasks/${id}`, { _method: "PUT", title: "taken" })).status).toBe(404);
    expect((await bob.post(`/tasks/${id}`, { _method: "DELETE" })).status).toBe(404);
    expect((await ann.get(`/tasks/${id}`)).html).toBe("show ann's secret");
    expect((await ann.get(`/tasks/${id}/edit`)).html).toBe("edit ann's secret");
    expect((await ann.get(`/tasks/${id}/delete`)).html).toBe("delete ann's secret?");
    expect((await ann.get("/tasks")).html).toBe("index 1: ann's secret");
    await ann.get("/login");
    expect((await ann.post(`/tasks/${id}`, { _method: "PUT", title: "ann's errand" })).html).toBe("updated ann's errand");
    expect((await ann.post(`/tasks/${id}`, { _method: "DELETE" })).html).toBe("deleted");
    expect((await ann.get(`/tasks/${id}`)).status).toBe(404);
  });

  it("an overriding Create stamps the signed-in user as the owner, as the derived Create does", async () => {
    const ann = await signedUp("stamp");
    await ann.get("/login");
    const made = await ann.post("/tasks", { title: "mine" });
    const owner = /owned by (\d+)/.exec(made.html)?.[1];
    expect(owner).toMatch(/^\d+$/);
    expect((await ann.get("/tasks/new")).html).toBe(`new task form for ${owner} function`);
  });

  it("an override of a guarded (not owned) model's page keeps the guard: nobody signed in is sent to sign in", async () => {
    const visitor = browser();
    const answer = await visitor.get("/notes/1");
    expect(answer.status).toBe(303);
    expect(answer.location).toBe("/login?next=%2Fnotes%2F1");
    const ann = await signedUp("notes");
    await ann.get("/notes/new");
    const made = await ann.post("/notes", { text: "hello" });
    expect(made.status).toBe(303);
    const shown = await ann.get(made.location as string);
    expect(shown.html).toMatch(/^note hello for \d+$/);
  });

  it("an override declaring a guard of its own still reads its model's rows as that page: a draft is its author's alone", async () => {
    const ann = await signedUp("author");
    await ann.get("/posts/new");
    const draft = await ann.post("/posts", { title: "draft", published: "" });
    expect(draft.status).toBe(303);
    await ann.get("/posts/new");
    const open = await ann.post("/posts", { title: "out", published: "on" });
    const draftPath = draft.location as string;
    expect((await ann.get(draftPath)).html).toBe("post draft (draft)");
    expect((await (await signedUp("reader")).get(draftPath)).status).toBe(404);
    expect((await browser().get(draftPath)).status).toBe(404);
    expect((await browser().get(open.location as string)).html).toBe("post out");
  });
});

describe("39.1 A new handwritten page or API route asking for a model's store gets what its viewer may read", () => {
  it("a guarded page's Store<Task> is the signed-in user's tasks alone", async () => {
    const ann = await signedUp("open-ann");
    const bob = await signedUp("open-bob");
    await task(ann, "a1");
    await task(bob, "b1");
    expect((await ann.get("/tasks/open")).html).toBe("open: a1");
    expect((await bob.get("/tasks/open")).html).toBe("open: b1");
  });

  it("a public page's Store<Task> reads only the visitor's own tasks (none signed out); every row is reached only by asking for ScopedStore<Task>", async () => {
    const ann = await signedUp("public");
    await task(ann, "p1");
    await task(await signedUp("public-other"), "p2");
    expect((await browser().get("/everyone")).html).toMatch(/^public sees 0 of ([2-9]|\d\d+)$/);
    // Who is looking is asked of the model's declaration, as a derived page's read scope asks it.
    expect((await ann.get("/everyone")).html).toMatch(/^public sees 1 of ([2-9]|\d\d+)$/);
  });

  it("an API route (no session) reads what nobody signed in may: no one's tasks, the published posts alone", async () => {
    const ann = await signedUp("api");
    await task(ann, "hidden");
    await ann.get("/posts/new");
    await ann.post("/posts", { title: "api draft", published: "" });
    await ann.get("/posts/new");
    await ann.post("/posts", { title: "api open", published: "on" });
    const tasks = (await (await fetch(`${fixture.url}/api/tasks`)).json()) as { titles: string[] };
    expect(tasks.titles).toEqual([]);
    const posts = (await (await fetch(`${fixture.url}/api/posts`)).json()) as { titles: string[] };
    expect(posts.titles).toContain("api open");
    expect(posts.titles).not.toContain("api draft");
  });
});
