// The answer's JSON schema for the Fastify peer of the JSON bench (bench/servers/json-peers.mjs) and
// fast-json-stringify in bench/json-worker.mjs.

/** The JSON schema of the answer, written by hand as a Fastify app would (the fw app's Post type, src/posts.ts). */
export const postsSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "title", "slug", "body", "author", "tags", "published", "views", "createdAt", "updatedAt"],
    properties: {
      id: { type: "number" },
      title: { type: "string" },
      slug: { type: "string" },
      body: { type: "string" },
      author: { type: "object", required: ["id", "name"], properties: { id: { type: "number" }, name: { type: "string" } } },
      tags: { type: "array", items: { type: "string" } },
      published: { type: "boolean" },
      views: { type: "number" },
      createdAt: { type: "string" },
      updatedAt: { type: ["string", "null"] },
    },
  },
};
