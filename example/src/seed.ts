import type { Id } from "fw";
import { seedDemoUser } from "./auth.js";
import { stores } from "./.fw/routes.js";
import type { Post } from "./models/Post.js";
import type { Tag } from "./models/Tag.js";

/** The demo's tags (issue 43, item 9), so a newcomer sees tags on /posts and can filter by one. */
const DEMO_TAGS = ["release", "tutorial", "community"] as const;

/** The demo's posts, written by the demo account with their tags, the newest last. */
const DEMO_POSTS: readonly { title: string; body: string; category: Post["category"]; tags: readonly (typeof DEMO_TAGS)[number][] }[] = [
  { title: "Welcome to the fw example", body: "A blog, a guestbook, notes and a chat, each a page or a model.\nSign in as the demo account to write a post.", category: "news", tags: ["release"] },
  { title: "How the posts are filtered", body: "Pick a category, a tag or a range of days above the list: the filters are in the URL, so a filtered list can be shared.", category: "howto", tags: ["tutorial"] },
  { title: "Tags on posts", body: "A post carries several tags and a tag many posts: each tag's page lists its posts.", category: "misc", tags: ["tutorial", "community"] },
];

/**
 * The example's seed (`db seed`, and every `dev` boot through DbApp's `devBoot`), safe to run at
 * every boot: the demo account (src/auth.ts); the demo tags, each made when no tag has its name;
 * and, on a database without posts, the demo posts, tagged. A database someone has written to
 * keeps what they wrote: the seed adds no post to it. Never in production by itself.
 */
export async function seedDemo(): Promise<void> {
  const demo = await seedDemoUser();
  const tags = new Map<string, Id<Tag>>();
  for (const name of DEMO_TAGS) {
    const found = (await stores.Tag.list({ where: { name }, limit: 1 })).rows[0] ?? (await stores.Tag.insert({ name }));
    tags.set(name, found.id);
  }
  if ((await stores.Post.list({ limit: 1 })).rows.length > 0) return;
  const posts = stores.Post.for(String(demo.id));
  for (const post of DEMO_POSTS) {
    await posts.insert({ title: post.title, body: post.body, category: post.category, published: true, createdAt: new Date(), tags: post.tags.map((name) => tags.get(name) as Id<Tag>) });
  }
}
