import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemoryStore, Ok, Route, RouteTable, type Html, type Store } from "../../runtime/index.js";
import { live, liveClientRoute, livePageRoutes, liveSocketRoute, publishing, type LiveMount } from "../../runtime/live/index.js";
import { compiled } from "../live/compiled.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { serve, sessionCookie, type Served } from "../support/serve.js";
import { connect, type Client } from "../support/ws-client.js";

// Issue 44 item 2, live refreshes: a write made by a request publishes its model's topic, and the
// live pages that listen refresh: each refresh is a span in the writing request's trace. In this
// process (fw/live's sockets are easiest driven here): the app starts its tracing from the OTEL_*
// variables as any app does.

interface Post {
  id: number;
  title: string;
}

const PAGES = compiled(`export const posts = (s: any) => <main><ul>{s.rows.map((p: any) => <li>{p.title}</li>)}</ul></main>;`) as Record<string, (state: never) => Html>;
const store: Store<Post> = publishing(new InMemoryStore<Post>("id"), "posts");
const mount = { id: "live.posts.Index", path: "/live/posts", capabilities: { posts: store }, source: "src/app/live/posts/Index.tsx" } satisfies LiveMount<unknown>;
const postsPage = live<{ rows: readonly Post[] }, { posts: Store<Post> }>({
  mount: async (_request, { posts }) => ({ rows: (await posts.list({ offset: 0, limit: 100 })).rows }),
  render: (state) => (PAGES.posts as (s: { rows: readonly Post[] }) => Html)(state),
  topics: ["posts"],
  shared: false,
});
const routes = RouteTable.of(
  ...livePageRoutes(postsPage, mount),
  liveSocketRoute(postsPage, mount),
  liveClientRoute(),
  Route.api({ method: "POST", path: "/api/posts", handler: async () => Ok(String((await store.insert({ title: "Traced post" })).id)) }),
);

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((done) => setTimeout(done, 20));
}

describe("issue 44 item 2: live refreshes in the writing request's trace", () => {
  let receiver: OtlpReceiver;
  let app: Served;
  const saved = { ...process.env };

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "50" });
    app = await serve({ routes });
  });

  afterAll(async () => {
    await app.close();
    await receiver.close();
    process.env = saved;
  });

  it("a POST that inserts a row refreshes the page's sockets, each refresh a child span of the POST's", async () => {
    const page = await app.get("/live/posts");
    const cookie = sessionCookie(page) as string;
    await page.text();
    const clients: Client[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const client = await connect(app.url, `/fw/live/${mount.id}?path=${encodeURIComponent("/live/posts")}`, { headers: { cookie } });
        await client.next(); // the page, mounted
        clients.push(client);
      }
      expect((await fetch(`${app.url}/api/posts`, { method: "POST" })).status).toBe(200);
      for (const client of clients) expect(await client.next()).toContain("Traced post");
      await until(() => receiver.spans.filter((span) => span.name === "live refresh src/app/live/posts/Index.tsx").length >= 2 && receiver.spans.some((span) => span.name === "POST /api/posts"));
      const post = receiver.spans.find((span) => span.name === "POST /api/posts") as ReceivedSpan;
      const refreshes = receiver.spans.filter((span) => span.name === "live refresh src/app/live/posts/Index.tsx");
      expect(refreshes.map((span) => [span.traceId, span.parentSpanId])).toEqual([
        [post.traceId, post.spanId],
        [post.traceId, post.spanId],
      ]);
      expect(refreshes[0]?.attributes).toMatchObject({ "fw.live.page": "src/app/live/posts/Index.tsx", "fw.live.shared": false });
    } finally {
      for (const client of clients) client.socket.close();
    }
  });
});
