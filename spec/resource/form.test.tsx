import { describe, expect, it } from "vitest";
import { FromPath, Fields, Form, renderHtml, type ModelSpec, type Validation } from "../../runtime/index.js";

interface Post {
  id: number;
  title: string;
  body: string;
  published: boolean;
  summary?: string;
  category: "news" | "howto" | "misc";
  rating?: number;
  publishedOn?: Date;
}

/** What typia's createValidate<Omit<Post, "id">> checks here: title MinLength<1>, rating 1–5. */
function validate(input: unknown): Validation<Post> {
  const draft = input as Partial<Post>;
  const errors: { path: string; expected: string; value: unknown }[] = [];
  if (typeof draft.title === "string" && draft.title.length < 1) errors.push({ path: "$input.title", expected: "string & MinLength<1>", value: draft.title });
  if (draft.rating !== undefined && draft.rating > 5) errors.push({ path: "$input.rating", expected: "number & Minimum<1> & Maximum<5>", value: draft.rating });
  return errors.length === 0 ? { success: true, data: draft as Post } : { success: false, errors };
}

const model: ModelSpec<Post> = {
  name: "Post",
  fqn: "models.Post",
  path: "/posts",
  key: "id",
  fields: [
    { name: "title", label: "Title", input: "text", optional: false, describe: "text" },
    { name: "body", label: "Body", input: "textarea", optional: false, describe: "text" },
    { name: "published", label: "Published", input: "checkbox", optional: false, describe: "yes or no" },
    { name: "summary", label: "Summary", input: "text", optional: true, describe: "text" },
    { name: "category", label: "Category", input: "select", optional: false, options: ["news", "howto", "misc"], describe: "one of news, howto, misc" },
    { name: "rating", label: "Rating", input: "number", optional: true, describe: "a number" },
    { name: "publishedOn", label: "Published on", input: "date", optional: true, describe: "a date (YYYY-MM-DD)" },
  ],
  validate,
  decodeKey: FromPath.int,
};

const form = new Form(model);
const submit = (text: string) => form.parse(Fields.parse(text, "form"));

describe("2.15 Form: render", () => {
  const html = renderHtml(form.render({ action: "/posts/3", method: "PUT", csrf: "tok<en>", values: { title: "A & B", category: "howto", published: "true" } }));

  it("is a whole POST form; PUT travels as _method, the CSRF token as _csrf", () => {
    expect(html).toMatch(/^<form method="post" action="\/posts\/3"/);
    expect(html).toContain('<input type="hidden" name="_method" value="PUT">');
    expect(html).toContain('<input type="hidden" name="_csrf" value="tok&lt;en&gt;">');
    const post = renderHtml(form.render({ action: "/posts", method: "POST", csrf: "t" }));
    expect(post).not.toContain("_method");
  });

  it("never renders the key, hidden or shown", () => {
    expect(html).not.toMatch(/name="id"/);
    expect(html).not.toContain("Id");
  });

  it("gives each type its input: text, textarea, checkbox, select, number, date, with labels", () => {
    expect(html).toContain('<label for="post-title">Title</label><input id="post-title" name="title" type="text" value="A &amp; B" required>');
    expect(html).toMatch(/<textarea id="post-body" name="body" required rows="6"><\/textarea>/);
    expect(html).toContain('<input id="post-published" name="published" type="checkbox" value="true" checked>');
    expect(html).toContain('<option value="howto" selected>howto</option>');
    expect(html).toContain('name="rating" type="number" step="any" value=""');
    expect(html).toContain('name="publishedOn" type="date" value=""');
    expect(html).toMatch(/name="summary" type="text" value="">/); // optional: not required
  });

  it("its fields name the properties exactly and label them for people; headings come from it", () => {
    expect(form.fields.map((f) => f.name)).toEqual(["title", "body", "published", "summary", "category", "rating", "publishedOn"]);
    expect(form.headings).toEqual(["Title", "Body", "Published", "Summary", "Category", "Rating", "Published on"]);
  });

  it("absent: a boolean reads false, an optional undefined, anything else is required", () => {
    const absent = Object.fromEntries(form.fields.map((f) => [f.name, f.absent()]));
    expect(absent["published"]).toEqual({ value: false });
    expect(absent["summary"]).toEqual({ value: undefined });
    expect(absent["title"]).toBeUndefined();
    expect(absent["category"]).toBeUndefined();
  });
});

describe("2.15 Form: parse", () => {
  it("reads every type; an unchecked box is false, absent optionals are left out", () => {
    const parsed = submit("title=Hi&body=Long+text&category=misc&rating=4&publishedOn=2026-11-22");
    expect(parsed).toEqual({
      ok: true,
      draft: { title: "Hi", body: "Long text", published: false, category: "misc", rating: 4, publishedOn: new Date("2026-11-22T00:00:00Z") },
    });
  });

  it("an empty optional input reads as absent", () => {
    const parsed = submit("title=Hi&body=b&category=news&summary=&rating=&publishedOn=&published=true");
    expect(parsed.ok && parsed.draft).toEqual({ title: "Hi", body: "b", category: "news", published: true });
  });

  it("a missing required field is 'is required'; an unreadable value says what it could not be read as", () => {
    const parsed = submit("title=Hi&category=other&rating=lots&publishedOn=2026-02-30&published=maybe");
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.for("body")).toEqual([{ field: "body", kind: "required", message: "Body is required." }]);
    expect(parsed.errors.for("category")[0]?.message).toBe("Category could not be read as one of news, howto, misc.");
    expect(parsed.errors.for("rating")[0]?.message).toBe("Rating could not be read as a number.");
    expect(parsed.errors.for("publishedOn")[0]?.message).toBe("Published on could not be read as a date (YYYY-MM-DD).");
    expect(parsed.errors.for("published")[0]?.kind).toBe("unreadable");
    expect(parsed.values).toEqual({ title: "Hi", category: "other", rating: "lots", publishedOn: "2026-02-30", published: "maybe" });
  });

  it("the model's own rules (typia tags) become problems beside their fields", () => {
    const parsed = submit("title=&body=b&category=news&rating=9");
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.for("title")).toEqual([{ field: "title", kind: "invalid", message: "Title must be at least 1 character long." }]);
    expect(parsed.errors.for("rating")[0]?.message).toBe("Rating must be at most 5.");
  });

  it("re-renders with the values as typed and each error beside its field", () => {
    const parsed = submit("title=&body=%3Cb%3E&category=news&rating=9");
    if (parsed.ok) throw new Error("expected problems");
    const html = renderHtml(form.render({ action: "/posts", method: "POST", csrf: "t", values: parsed.values, errors: parsed.errors }));
    expect(html).toContain('<textarea id="post-body" name="body" required rows="6">&lt;b&gt;</textarea>');
    expect(html).toContain('aria-invalid="true" aria-describedby="post-title-error" type="text" value="" required><p class="fw-field-error" id="post-title-error">Title must be at least 1 character long.</p>');
    expect(html).toContain('value="9"><p class="fw-field-error" id="post-rating-error">Rating must be at most 5.</p>');
  });

  it("ignores fields the model does not have, the key included", () => {
    const parsed = submit("id=99&admin=true&title=Hi&body=b&category=news");
    expect(parsed.ok && parsed.draft).toEqual({ title: "Hi", body: "b", category: "news", published: false });
  });
});

describe("Rule messages", () => {
  it("name the rule the value breaks, not the first rule of its type", async () => {
    const { ruleMessage } = await import("../../runtime/resource/form-errors.js");
    expect(ruleMessage("number & Minimum<1> & Maximum<5>", 9)).toBe("must be at most 5");
    expect(ruleMessage("number & Minimum<1> & Maximum<5>", 0)).toBe("must be at least 1");
    expect(ruleMessage("number & ExclusiveMinimum<0>", 0)).toBe("must be more than 0");
    expect(ruleMessage('number & Type<"uint32">', 1.5)).toBe("must be a whole number from 0 up");
    expect(ruleMessage('string & MinLength<3> & Format<"email">', "ab")).toBe("must be at least 3 characters long");
    expect(ruleMessage('string & MinLength<3> & Format<"email">', "abcd")).toBe("must be an email address");
    expect(ruleMessage("Something<odd>", 1)).toBe("is not valid (expected Something<odd>)");
  });
});

describe("A select re-rendered after a failed submission", () => {
  it("keeps its blank choice when nothing was chosen, so no option looks sent", () => {
    const parsed = submit("title=Hi&body=b&category=");
    if (parsed.ok) throw new Error("expected problems");
    expect(parsed.errors.for("category")[0]?.message).toBe("Category is required.");
    const html = renderHtml(form.render({ action: "/posts", method: "POST", csrf: "t", values: parsed.values, errors: parsed.errors }));
    expect(html).toContain('<option value="" selected>Choose…</option><option value="news">news</option>');
  });
});
