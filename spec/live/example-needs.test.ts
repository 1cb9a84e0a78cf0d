import { describe, expect, it } from "vitest";
import { FromPath, InMemoryStore, raw, ScopedStore } from "../../runtime/index.js";
import { live, livePageRoutes, publishing, type LiveValues } from "../../runtime/live/index.js";
import { subscribe } from "../../runtime/live/topics.js";

// What the example's live /posts needs from fw/live (issue 23): a live page that replaces a
// derived Index leaves the model's POST to the derived Create, and every write through an owned
// model's store publishes, a Create through the owner's narrowed store (`for`) included.

interface Task {
  id: number;
  owner: number;
  title: string;
}

const mount = { id: "tasks.Index", path: "/tasks", capabilities: {}, source: "src/app/tasks/Index.tsx" };

describe("4.6 a live page's own rows", () => {
  it("a page without events is a GET alone: its path's POST stays with whatever else serves it (a derived Create)", () => {
    const page = live({ mount: () => ({}), render: () => raw("tasks"), topics: ["tasks"] });
    expect(livePageRoutes(page, mount).map((route) => `${route.method} ${route.path.toString()}`)).toEqual(["GET /tasks"]);
  });

  it("a page with events also answers the no-JavaScript POST of its forms", () => {
    const page = live({ mount: () => ({}), render: () => raw("tasks"), events: { add: (state: object, _values: LiveValues) => state } });
    expect(livePageRoutes(page, mount).map((route) => route.method)).toEqual(["GET", "POST"]);
  });
});

describe("fw/live publishing: every write through a wrapped store publishes its topic", () => {
  it("a scoped store wrapped whole publishes on insert through `for(owner)`, on update and delete; it is still a ScopedStore", async () => {
    const heard: string[] = [];
    const leave = subscribe("tasks-scoped", () => heard.push("publish"));
    try {
      const store = publishing(new ScopedStore<Task>(new InMemoryStore<Task>("id"), "owner", FromPath.int), "tasks-scoped");
      expect(store).toBeInstanceOf(ScopedStore);
      const row = await store.for("7").insert({ title: "mine" });
      expect(heard).toEqual(["publish"]);
      await store.update(row.id, { title: "renamed", owner: 7 });
      await store.delete(row.id);
      expect(heard).toEqual(["publish", "publish", "publish"]);
      expect(await store.for("7").delete(12345)).toBe(false); // nothing deleted: nothing published
      expect(heard).toHaveLength(3);
    } finally {
      leave();
    }
  });
});
