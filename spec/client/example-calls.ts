// Calls every API route of the example through fw/client, typed by the example's generated Api
// (example/src/.fw/api.ts, written by `npm run build`). Not part of the root typecheck (the file
// it types against exists only after the build): spec/resource/example.test.ts type-checks it,
// against fw as the example builds against it (dist/, as an app gets it),
// with tsconfig.example-calls.json, then runs it against the served example.
import type { ApiClient } from "fw/client";
import type { Api } from "../../example/src/.fw/api.js";

/** `true` only when `T` is not `any`: an answer typed `any` would fail the type check here. */
type NotAny<T> = 0 extends 1 & T ? false : true;
const typed = <T>(value: T, _check: NotAny<T>): T => value;

/** Every route, once: the published posts, one of them, the guestbook, and a new entry. */
export async function callEveryExampleRoute(api: ApiClient<Api>, name: string) {
  const list = typed(await api.get("/api/posts"), true);
  const first = list.posts[0];
  const post = first === undefined ? undefined : typed(await api.get("/api/posts/:id", { id: first.id }), true);
  const signed = typed(await api.post("/api/entries", { name, message: "Signed through fw/client." }), true);
  const entries = typed(await api.get("/api/entries"), true);
  const names: string[] = entries.map((entry) => entry.name);
  const title: string | undefined = post?.title;
  return { total: list.total, titles: list.posts.map((p) => p.title), title, signed, names };
}
