import { afterEach, describe, expect, it } from "vitest";
import { FromPath, InMemoryStore, ScopedStore, type FanOut, type Store } from "../../runtime/index.js";
import { publish, publishing } from "../../runtime/live/index.js";
import { subscribe, TOPIC_ROOM_PREFIX } from "../../runtime/live/topics.js";
import { installFanOut } from "../../runtime/ws/fan-out.js";

/** A transport that records what it was asked to publish and lets the test deliver "from another process". */
function recordingFanOut() {
  const published: string[] = [];
  let deliver: ((room: string, text: string) => void) | undefined;
  const fanOut: FanOut = {
    publish: (room, text) => void published.push(`${room} ${text}`),
    start: async (to) => void (deliver = to),
    close: async () => void (deliver = undefined),
  };
  return { fanOut, published, fromElsewhere: (room: string, text: string) => deliver?.(room, text) };
}

afterEach(() => installFanOut(undefined));

interface Task {
  id: number;
  owner: number;
  title: string;
}

describe("fw/live topics: publish, across processes through the core's fan-out", () => {
  it("a publish reaches this process's listeners and the fan-out, under the reserved room prefix; one from elsewhere reaches the listeners here", async () => {
    const { fanOut, published, fromElsewhere } = recordingFanOut();
    await installFanOut(fanOut);
    const heard: (string | undefined)[] = [];
    const leave = subscribe("posts", (message) => heard.push(message));
    publish("posts", "created 7");
    publish("posts");
    publish("comments");
    fromElsewhere(`${TOPIC_ROOM_PREFIX}posts`, JSON.stringify({ m: "from another process" }));
    fromElsewhere("posts", JSON.stringify({ m: "an app room of that name: not a topic" }));
    fromElsewhere(`${TOPIC_ROOM_PREFIX}posts`, "not json");
    expect(heard).toEqual(["created 7", undefined, "from another process", undefined]);
    expect(published).toEqual([`fw.live:posts {"m":"created 7"}`, "fw.live:posts {}", "fw.live:comments {}"]);
    leave();
    publish("posts", "after leaving");
    expect(heard).toHaveLength(4);
  });

  it("refuses a topic that is empty or too long for a room name", () => {
    expect(() => publish("")).toThrow(/a topic must be 1 to/);
    expect(() => publish("x".repeat(500))).toThrow(/a topic must be 1 to/);
  });
});

describe("fw/live publishing(store, topic): every write publishes", () => {
  it("insert, update and delete publish; a write that changed nothing does not; reads never", async () => {
    const heard: string[] = [];
    const leave = subscribe("tasks", () => heard.push("tasks"));
    const tasks = publishing(new InMemoryStore<Task>("id"), "tasks");
    const row = await tasks.insert({ owner: 1, title: "a" });
    await tasks.update(row.id, { title: "b" });
    await tasks.update(999, { title: "c" });
    await tasks.get(row.id);
    await tasks.list({ offset: 0, limit: 10 });
    await tasks.delete(999);
    await tasks.delete(row.id);
    expect(heard).toEqual(["tasks", "tasks", "tasks"]);
    leave();
  });

  it("a scoped store keeps its own members; writes through for(owner) and a where() narrowing publish too", async () => {
    const heard: string[] = [];
    const leave = subscribe("tasks", () => heard.push("tasks"));
    const scoped = publishing(new ScopedStore<Task>(new InMemoryStore<Task>("id"), "owner", FromPath.int), "tasks") as ScopedStore<Task>;
    expect(scoped).toBeInstanceOf(ScopedStore);
    const mine = scoped.for("1");
    await mine.insert({ title: "mine" });
    expect(heard).toEqual(["tasks"]);
    // A store that narrows (as a database store answers `where` with a WHERE clause).
    const table = new InMemoryStore<Task>("id");
    const narrowing: Store<Task> = { list: (p) => table.list(p), count: (q) => table.count(q), search: (t, p) => table.search(t, p), get: (k) => table.get(k), insert: (d) => table.insert(d), update: (k, d) => table.update(k, d), delete: (k) => table.delete(k), where: () => table };
    const plain = publishing<Task>(narrowing, "tasks");
    const row = await table.insert({ owner: 2, title: "theirs" });
    const narrowed = plain.where?.({ anyOf: [{ field: "owner", equals: 2 }] });
    expect(narrowed).toBeDefined();
    await narrowed?.delete(row.id);
    expect(heard).toEqual(["tasks", "tasks"]);
    leave();
  });

  it("a delete also publishes the topics of the rows it takes with it or changes (cascade, set null), which the build lists", async () => {
    const heard: string[] = [];
    const leaving = ["posts", "comments", "likes"].map((topic) => subscribe(topic, () => heard.push(topic)));
    const posts = publishing(new InMemoryStore<Task>("id"), "posts", ["comments", "likes"]);
    const row = await posts.insert({ owner: 1, title: "a" });
    await posts.delete(999);
    await posts.delete(row.id);
    expect(heard).toEqual(["posts", "posts", "comments", "likes"]);
    expect(() => publishing(new InMemoryStore<Task>("id"), "posts", [""])).toThrow(/a topic must be 1 to/);
    leaving.forEach((leave) => leave());
  });
});
