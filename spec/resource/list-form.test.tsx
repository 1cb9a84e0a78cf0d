import { describe, expect, it } from "vitest";
import { FromPath, Fields, Form, renderHtml, type ModelSpec } from "../../runtime/index.js";

// Issue 43, item 5: a list of references in a form (`tags: Id<Tag>[]`): read from one value per
// choice (a <select multiple>) or from numbers separated by commas, and shown as a multi-select
// of few rows, or past the picker's limit as the chosen rows' boxes beside a text input.
interface Post {
  id: number;
  title: string;
  tags: number[];
}

const model: ModelSpec<Post> = {
  name: "Post",
  fqn: "models.Post",
  path: "/posts",
  key: "id",
  fields: [
    { name: "title", label: "Title", input: "text", optional: false, describe: "text" },
    { name: "tags", label: "Tags", input: "references", optional: false, describe: "a list of tags", reference: { model: "Tag", path: "/tags", onDelete: "cascade" } },
  ],
  validate: (input) => ({ success: true, data: input as Post }),
  decodeKey: FromPath.int,
};
const form = new Form(model);
const parse = (pairs: [string, string][]) => form.parse(Fields.of(pairs));

describe("a list of references in a form (issue 43, item 5)", () => {
  it("reads one key per value and numbers separated by commas, each once, in the order sent; nothing sent is the empty list", () => {
    expect(parse([["title", "t"], ["tags", "3"], ["tags", "1"], ["tags", "3"]])).toEqual({ ok: true, draft: { title: "t", tags: [3, 1] } });
    expect(parse([["title", "t"], ["tags", " 7, 8 ,"]])).toEqual({ ok: true, draft: { title: "t", tags: [7, 8] } });
    expect(parse([["title", "t"]])).toEqual({ ok: true, draft: { title: "t", tags: [] } });
  });

  it("refuses what is not a key, naming it, and more than 1,000 keys; the typed text comes back", () => {
    const bad = parse([["title", "t"], ["tags", "3"], ["tags", "news"]]);
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.for("tags")[0]?.message).toBe('Tags could not be read as a list of tags: "news" is not the number of a row.');
    expect(bad.values["tags"]).toBe("3,news");
    const many = parse([["title", "t"], ["tags", Array.from({ length: 1001 }, (_, i) => String(i + 1)).join(",")]]);
    expect(many.ok ? "" : many.errors.for("tags")[0]?.message).toBe("Tags may list at most 1,000 rows.");
  });

  it("shows a <select multiple> of few rows, the chosen ones selected; past the limit, the chosen rows' boxes and a search input", () => {
    const few = renderHtml(form.render({ action: "/posts", method: "POST", csrf: "c", values: { tags: "2" }, choices: { tags: { mode: "select", options: [{ key: 1, label: "a" }, { key: 2, label: "b" }] } } }));
    expect(few).toContain('<select id="post-tags" name="tags" multiple size="3"><option value="1">a</option><option value="2" selected>b</option></select>');
    const many = renderHtml(form.render({ action: "/posts", method: "POST", csrf: "c", values: { tags: "2,9" }, choices: { tags: { mode: "search", options: [{ key: 2, label: "b" }], hint: "More tags by their numbers." } } }));
    expect(many).toContain('<label class="fw-chosen-row"><input type="checkbox" name="tags" value="2" checked> b</label>');
    expect(many).toContain('<input id="post-tags" name="tags" aria-describedby="post-tags-hint" type="search" value="9" autocomplete="off">');
    // Both send `tags`: the boxes still ticked and the numbers typed, read together.
    expect(parse([["title", "t"], ["tags", "2"], ["tags", "9, 11"]])).toEqual({ ok: true, draft: { title: "t", tags: [2, 9, 11] } });
  });

  it("with no rows to choose from, says so beside a small disabled box; sending nothing is the empty list", () => {
    const none = renderHtml(form.render({ action: "/posts", method: "POST", csrf: "c", values: {}, choices: { tags: { mode: "select", options: [] } } }));
    expect(none).toContain('<label for="post-tags">Tags</label><select id="post-tags" name="tags" multiple size="1" disabled></select><p class="fw-field-hint">No tags to choose from yet.</p>');
    expect(parse([["title", "t"]])).toEqual({ ok: true, draft: { title: "t", tags: [] } });
  });

  it("an edit form shows a row's list as its keys", () => {
    expect(form.values({ id: 1, title: "t", tags: [4, 5] })).toEqual({ title: "t", tags: "4,5" });
  });
});
