import { describe, expect, it } from "vitest";
import { emitModule, type Derived, type Row } from "../../transformer/emit.js";
import type { Model } from "../../transformer/models.js";

// The generated module loads fw/db only when a model declares a table (issue 20): an app
// without one keeps the core free of the database module.
const model = (name: string): Model => ({ name, fqn: `models.${name}`, file: `/app/src/models/${name}.ts`, derivations: ["Form", "Resource"], valuePath: name, typePath: name }) as unknown as Model;
const derived = (name: string, table?: string): Derived => ({
  model: model(name),
  shown: `src/models/${name}.ts`,
  shape: { key: "id", fields: [{ name: "text", label: "Text", input: "text", optional: false, describe: "text", maxLength: 200 }], references: [], lists: [] },
  ...(table === undefined ? {} : { table: { name: table, key: { field: "id", column: "id" }, columns: [{ field: "text", column: "text", type: "text", nullable: false, maxLength: 200 }] } }),
});
const emit = (models: readonly Derived[]): string =>
  emitModule({ out: "/app/src/.fw/routes.ts", fwModule: "fw", dbModule: "fw/db", capabilitiesFile: "/app/src/capabilities.ts", rows: [], models: models.map((d) => d.model), derived: models, appDirShown: "src/app" });

describe("issue 20: the generated module and fw/db", () => {
  it("without a table model, no import of fw/db, in-memory stores, and an empty tables list", () => {
    const text = emit([derived("Note")]);
    expect(text).not.toMatch(/from "fw\/db"/);
    expect(text).toContain("return memory.store<A>(model);");
    expect(text).toContain("export const tables = [] as const;");
  });

  it("with one, fw/db is imported once, that model's store is a SqlStore on the process database, the others stay in memory", () => {
    const text = emit([derived("Note"), derived("Post", "posts")]);
    expect(text.match(/from "fw\/db"/g)).toHaveLength(1);
    expect(text).toContain(`import { processDatabase, SqlStore, type TableSpec } from "fw/db";`);
    expect(text).toContain("const store0 = storeFor(model0);");
    expect(text).toContain("const store1 = storeFor(model1, table1);");
    expect(text).toContain(`const table1: TableSpec = {"name":"posts",`);
    expect(text).toContain("export const tables: readonly TableSpec[] = [table1];");
    // Issue 43, item 6: every derived model's store, by name, for the jobs that ask for them.
    expect(text).toContain("export const stores = { Note: store0, Post: store1 };");
  });
});

// Issue 23: fw/live is an optional module: an app without a live page never imports it, and its
// stores are not wrapped to publish.
describe("issue 23: the generated module and fw/live", () => {
  it("without a live page, no import of fw/live and no publishing store", () => {
    const text = emit([derived("Note")]);
    expect(text).not.toMatch(/fw\/live|publishing|liveClientRoute/);
    expect(text).toContain("const store0 = storeFor(model0);");
  });

  const page: Row = {
    file: "/app/src/app/Index.tsx",
    shown: "src/app/Index.tsx",
    method: "GET",
    pattern: "/",
    exportName: "index",
    handler: { case: "live", id: "Index", params: [], capabilities: [], forms: [] },
    guarded: false,
  };
  const withPage = (models: readonly Derived[]): string =>
    emitModule({ out: "/app/src/.fw/routes.ts", fwModule: "fw", dbModule: "fw/db", capabilitiesFile: "/app/src/capabilities.ts", rows: [page], models: models.map((d) => d.model), derived: models, appDirShown: "src/app" });
  const owned = (d: Derived): Derived => ({ ...d, owner: { field: "author", model: "User" } });

  it("with one, an owned model's whole table publishes under its ScopedStore (every write goes through it), a table model's store publishes", () => {
    const text = withPage([owned(derived("Note")), derived("Post", "posts")]);
    expect(text).toContain(`const store0 = new ScopedStore<m0.Note>(publishing(storeFor(model0), "notes"), "author", `);
    expect(text).toContain(`const store1 = publishing(storeFor(model1, table1), "posts");`);
  });

  it("an owned model with a table has its SqlScopedStore wrapped whole (it writes through its SqlStore's rows, so nothing can be wrapped under it), and fw/live is imported", () => {
    const text = withPage([owned(derived("Note", "notes"))]);
    expect(text).toContain(`const store0 = publishing(new SqlScopedStore<m0.Note>(new SqlStore<m0.Note>(processDatabase(), table0), `);
    expect(text).toMatch(/import \{ liveClientRoute, livePageRoutes, liveSocketRoute, publishing \} from "fw\/live";/);
  });

  it("a model others point at with cascade or set null also publishes their topics on delete, down a cascade (issue 29)", () => {
    const pointing = (name: string, field: string, model: string, onDelete: "restrict" | "cascade" | "set null"): Derived => {
      const d = derived(name);
      const reference = { name: field, label: field, input: "reference" as const, optional: onDelete === "set null", describe: `a ${model}`, reference: { model, path: `/${model.toLowerCase()}s`, onDelete } };
      return { ...d, shape: { ...d.shape, fields: [...d.shape.fields, reference] } };
    };
    const text = withPage([derived("Post"), pointing("Comment", "post", "Post", "cascade"), pointing("Reply", "comment", "Comment", "cascade"), pointing("Like", "post", "Post", "set null"), pointing("Review", "post", "Post", "restrict")]);
    expect(text).toContain(`const store0 = publishing(storeFor(model0), "posts", ["comments", "replies", "likes"]);`);
    expect(text).toContain(`const store1 = publishing(storeFor(model1), "comments", ["replies"]);`);
    expect(text).toContain(`const store4 = publishing(storeFor(model4), "reviews");`);
  });
});
