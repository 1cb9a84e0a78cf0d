import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FromPath, InMemoryStore, resourceRoutes, RouteTable, type ModelSpec } from "../../runtime/index.js";
import { createTableSql, SqlStore, type TableSpec } from "../../runtime/db/index.js";
import { Visitor } from "../support/browser.js";
import { serve, type Served } from "../support/serve.js";
import { onEveryEngine } from "./engines.js";

// Issue 20, the resource layer on a versioned store: Edit's form carries the row's version,
// Update passes it back; a change based on a stale read answers 409 with the form shown again,
// a value a unique column holds already answers 422 beside its field.
interface Tag {
  id: number;
  name: string;
  note?: string;
}

const model: ModelSpec<Tag> = {
  name: "Tag",
  fqn: "Tag",
  path: "/tags",
  key: "id",
  fields: [
    { name: "name", label: "Name", input: "text", optional: false, describe: "text", maxLength: 40 },
    { name: "note", label: "Note", input: "text", optional: true, describe: "text", maxLength: 200 },
  ],
  validate: (input) => ({ success: true, data: input as Tag }),
  decodeKey: FromPath.int,
};

let tables = 0;

onEveryEngine((engine) => {
  describe(`issue 20: versions and unique values through the derived pages, on ${engine.name}`, () => {
    let served: Served | undefined;
    let store: SqlStore<Tag>;
    const url = (): string => (served as Served).url;

    beforeAll(async () => {
      const spec: TableSpec = {
        name: `tags_${++tables}`,
        key: { field: "id", column: "id" },
        columns: [
          { field: "name", column: "name", type: "text", nullable: false, maxLength: 40, unique: true },
          { field: "note", column: "note", type: "text", nullable: true },
        ],
      };
      await engine.db().script(createTableSql(spec));
      store = new SqlStore<Tag>(engine.db(), spec);
      served = await serve({ routes: RouteTable.of(...resourceRoutes(model, store)) });
    });
    afterAll(async () => served?.close());

    it("Edit's form carries the row's version in the reserved _version field; Update moves it on", async () => {
      const tag = await store.insert({ name: `v-${tables}` });
      const visitor = new Visitor(url());
      const edit = await visitor.get(`/tags/${tag.id}/edit`);
      expect(edit.html).toContain('<input type="hidden" name="_version" value="1">');
      const saved = await visitor.post(`/tags/${tag.id}`, { _method: "PUT", _version: "1", name: "renamed" });
      expect(saved.status).toBe(303);
      expect(await store.read(tag.id)).toEqual({ row: { id: tag.id, name: "renamed" }, version: 2 });
      expect((await visitor.get(`/tags/${tag.id}/edit`)).html).toContain('name="_version" value="2"');
    });

    it("two people edit one row: the second save answers 409, the form again with their values, the new version and a message; nothing is lost", async () => {
      const tag = await store.insert({ name: "shared" });
      const ada = new Visitor(url());
      const bob = new Visitor(url());
      await ada.get(`/tags/${tag.id}/edit`);
      await bob.get(`/tags/${tag.id}/edit`);
      expect((await ada.post(`/tags/${tag.id}`, { _method: "PUT", _version: "1", name: "shared", note: "ada's" })).status).toBe(303);
      const late = await bob.post(`/tags/${tag.id}`, { _method: "PUT", _version: "1", name: "shared", note: "bob's" });
      expect(late.status).toBe(409);
      expect(late.html).toContain('<p class="fw-form-error" role="alert">Someone else saved this tag after you opened this form, so your changes were not saved.');
      expect(late.html).toContain('value="bob&#39;s"');
      expect(late.html).toContain('name="_version" value="2"');
      expect((await store.get(tag.id))?.note).toBe("ada's");
      // Saving again from the re-rendered form is a deliberate overwrite.
      expect((await bob.post(`/tags/${tag.id}`, { _method: "PUT", _version: "2", name: "shared", note: "bob's" })).status).toBe(303);
      expect(await store.read(tag.id)).toEqual({ row: { id: tag.id, name: "shared", note: "bob's" }, version: 3 });
    });

    it("a validation failure keeps the version the change was based on; a row deleted meanwhile is 404; a bad _version is 400", async () => {
      const tag = await store.insert({ name: "kept" });
      const visitor = new Visitor(url());
      await visitor.get(`/tags/${tag.id}/edit`);
      await store.update(tag.id, { name: "kept", note: "moved on" });
      const invalid = await visitor.post(`/tags/${tag.id}`, { _method: "PUT", _version: "1", name: "x".repeat(41) });
      expect(invalid.status).toBe(422);
      expect(invalid.html).toContain('name="_version" value="1"');
      expect((await visitor.post(`/tags/${tag.id}`, { _method: "PUT", _version: "x1", name: "n" })).status).toBe(400);
      await store.delete(tag.id);
      expect((await visitor.post(`/tags/${tag.id}`, { _method: "PUT", _version: "2", name: "n" })).status).toBe(404);
    });

    it("a value a unique column holds answers 422 beside its field, on Create and on Update, and writes nothing", async () => {
      await store.insert({ name: "taken" });
      const visitor = new Visitor(url());
      await visitor.get("/tags/new");
      const created = await visitor.post("/tags", { name: "taken", note: "mine" });
      expect(created.status).toBe(422);
      expect(created.html).toContain('<p class="fw-field-error" id="tag-name-error">Name is already taken: another tag has this name.</p>');
      expect(created.html).toContain('value="mine"');
      const other = await store.insert({ name: "free" });
      await visitor.get(`/tags/${other.id}/edit`);
      const updated = await visitor.post(`/tags/${other.id}`, { _method: "PUT", _version: "1", name: "taken" });
      expect(updated.status).toBe(422);
      expect(updated.html).toContain("Name is already taken");
      expect(updated.html).toContain('name="_version" value="1"');
      expect(await store.read(other.id)).toEqual({ row: { id: other.id, name: "free" }, version: 1 });
    });
  });
});

describe("issue 20: a store without versions is unchanged", () => {
  it("the in-memory store's edit form has no _version, and the last write wins", async () => {
    const store = new InMemoryStore<Tag>("id");
    const served = await serve({ routes: RouteTable.of(...resourceRoutes(model, store)) });
    try {
      const tag = await store.insert({ name: "mem" });
      const visitor = new Visitor(served.url);
      const edit = await visitor.get(`/tags/${tag.id}/edit`);
      expect(edit.html).not.toContain("_version");
      expect((await visitor.post(`/tags/${tag.id}`, { _method: "PUT", _version: "1", name: "a" })).status).toBe(303);
      expect((await visitor.post(`/tags/${tag.id}`, { _method: "PUT", _version: "1", name: "b" })).status).toBe(303);
      expect((await store.get(tag.id))?.name).toBe("b");
    } finally {
      await served.close();
    }
  });
});
