// For bench/json-worker.mjs alone (no route imports it): typia's checked typed stringify of the
// posts' type, what a route's writer falls back to when JSON.stringify would not write the value
// as the type says (runtime/http/json-writer.ts), measured on its own beside the route's writer.
import typia from "typia";
import type { Post } from "./posts.js";

export const typiaAssertStringify = typia.json.createAssertStringify<readonly Post[]>();
