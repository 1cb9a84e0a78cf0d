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

  it("a reference field (without its picker) takes whole numbers from 1, as keys are; another number any number (issue 28, item 10)", () => {
    const withReference = new Form({ ...model, fields: [...model.fields, { name: "author", label: "Author", input: "reference", optional: false, describe: "an author", reference: { model: "Author", path: "/authors", onDelete: "restrict" } }] });
    const rendered = renderHtml(withReference.render({ action: "/posts", method: "POST", csrf: "t" }));
    expect(rendered).toContain('<input id="post-author" name="author" type="number" step="1" min="1" value="" required>');
    expect(rendered).toContain('name="rating" type="number" step="any" value=""');
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
    const parsed = submit("title=Hi&body=b&category=news&rating=9");
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.for("rating")[0]?.message).toBe("Rating must be at most 5.");
  });

  it("an empty required text or textarea reads as missing: 'is required', as its `required` attribute says", () => {
    const parsed = submit("title=&body=&category=news&published=true");
    if (parsed.ok) throw new Error("expected problems");
    expect(parsed.errors.for("title")).toEqual([{ field: "title", kind: "required", message: "Title is required." }]);
    expect(parsed.errors.for("body")).toEqual([{ field: "body", kind: "required", message: "Body is required." }]);
    expect(parsed.errors.problems).toHaveLength(2);
  });

  it("every field's problems come in one answer: a field that cannot be read does not hide another's broken rule", () => {
    const parsed = submit("title=Hi&body=b&category=nonsense&rating=9");
    if (parsed.ok) throw new Error("expected problems");
    expect(parsed.errors.for("category")[0]?.kind).toBe("unreadable");
    expect(parsed.errors.for("rating")).toEqual([{ field: "rating", kind: "invalid", message: "Rating must be at most 5." }]);
    // A field already refused is not refused again by the model's rules (typia's "expected string").
    const empty = submit("title=&body=&category=&rating=9");
    if (empty.ok) throw new Error("expected problems");
    expect(empty.errors.problems.map((p) => `${p.field}:${p.kind}`)).toEqual(["title:required", "body:required", "category:required", "rating:invalid"]);
  });

  it("re-renders with the values as typed and each error beside its field", () => {
    const parsed = submit("title=&body=%3Cb%3E&category=news&rating=9");
    if (parsed.ok) throw new Error("expected problems");
    const html = renderHtml(form.render({ action: "/posts", method: "POST", csrf: "t", values: parsed.values, errors: parsed.errors }));
    expect(html).toContain('<textarea id="post-body" name="body" required rows="6">&lt;b&gt;</textarea>');
    expect(html).toContain('aria-invalid="true" aria-describedby="post-title-error" type="text" value="" required><p class="fw-field-error" id="post-title-error">Title is required.</p>');
    expect(html).toContain('value="9"><p class="fw-field-error" id="post-rating-error">Rating must be at most 5.</p>');
  });

  it("issue 28: U+0000 in a text or textarea is refused beside its field (a store cannot keep it), and not written back into the page", () => {
    const parsed = submit("title=a%00b&body=line%0D%0A%00&category=news&summary=ok");
    if (parsed.ok) throw new Error("expected problems");
    expect(parsed.errors.for("title").map((p) => p.message)).toEqual(["Title contains a NUL character (U+0000), which cannot be stored: remove it."]);
    expect(parsed.errors.for("body").map((p) => p.message)).toEqual(["Body contains a NUL character (U+0000), which cannot be stored: remove it."]);
    expect(parsed.errors.for("summary")).toEqual([]);
    expect(parsed.values["title"]).toBe("a\uFFFDb");
    const html = renderHtml(form.render({ action: "/posts", method: "POST", csrf: "t", values: parsed.values, errors: parsed.errors }));
    expect(html).not.toContain("\u0000");
    expect(html).toContain('aria-describedby="post-title-error" type="text" value="a\uFFFDb" required><p class="fw-field-error" id="post-title-error">Title contains a NUL character');
  });

  it("ignores fields the model does not have, the key included", () => {
    const parsed = submit("id=99&admin=true&title=Hi&body=b&category=news");
    expect(parsed.ok && parsed.draft).toEqual({ title: "Hi", body: "b", category: "news", published: false });
  });
});

describe("2.15 Form owns the _method override", () => {
  it("Form.button: a one-button form for another verb is a POST carrying _method and _csrf", () => {
    const html = renderHtml(Form.button({ action: "/posts/3", method: "DELETE", csrf: "tok", submit: "Delete", class: "fw-destroy" }));
    expect(html).toBe('<form method="post" action="/posts/3" class="fw-destroy"><input type="hidden" name="_method" value="DELETE"><input type="hidden" name="_csrf" value="tok"><button type="submit">Delete</button></form>');
    expect(renderHtml(Form.button({ action: "/logout", method: "POST", csrf: "tok", submit: "Sign out" }))).not.toContain("_method");
  });

  it("no page of fw's or of the example writes _method by hand: only the form module does", async () => {
    const { readdir, readFile } = await import("node:fs/promises");
    const writers: string[] = [];
    for (const root of ["runtime", "example/src"]) {
      for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
        const file = `${entry.parentPath}/${entry.name}`;
        if (!entry.isFile() || !/\.tsx?$/.test(entry.name) || file.includes("/.fw/")) continue;
        if (/name=(\{?)["']_method["']/.test(await readFile(file, "utf8"))) writers.push(file);
      }
    }
    expect(writers).toEqual(["runtime/resource/form.tsx"]);
  });
});

describe("2.15 absent: an optional boolean is an Option of Boolean", () => {
  const flags = new Form<{ id: number; featured?: boolean; archived: boolean }>({
    ...(model as unknown as ModelSpec<{ id: number; featured?: boolean; archived: boolean }>),
    fields: [
      { name: "featured", label: "Featured", input: "checkbox", optional: true, describe: "yes or no" },
      { name: "archived", label: "Archived", input: "checkbox", optional: false, describe: "yes or no" },
    ],
    validate: (input) => ({ success: true, data: input as { id: number; featured?: boolean; archived: boolean } }),
  });

  it("absent reads undefined (x?: boolean), where a required boolean reads false", () => {
    expect(flags.fields.map((f) => f.absent())).toEqual([{ value: undefined }, { value: false }]);
    const parsed = flags.parse(Fields.parse("", "form"));
    expect(parsed.ok && parsed.draft).toEqual({ archived: false });
    expect(parsed.ok && "featured" in parsed.draft).toBe(false);
  });

  it("a checked box still reads true, and an explicit false reads false", () => {
    expect(flags.parse(Fields.parse("featured=true", "form"))).toMatchObject({ ok: true, draft: { featured: true, archived: false } });
    expect(flags.parse(Fields.parse("featured=false", "form"))).toMatchObject({ ok: true, draft: { featured: false } });
  });
});

describe("2.15 Text fields have a maximum length", () => {
  const limited = new Form<Post>({
    ...model,
    fields: [
      { name: "title", label: "Title", input: "text", optional: false, describe: "text", maxLength: 5 },
      { name: "body", label: "Body", input: "textarea", optional: false, describe: "text", maxLength: 10_000 },
    ],
  });
  const post = (text: string) => limited.parse(Fields.parse(text, "form"));

  it("renders it as maxlength on the input and the textarea", () => {
    const html = renderHtml(limited.render({ action: "/posts", method: "POST", csrf: "t" }));
    expect(html).toContain('name="title" type="text" value="" required maxlength="5">');
    expect(html).toContain('name="body" required maxlength="10000" rows="6">');
  });

  it("refuses a longer value beside its field, saying the limit and the length sent; the limit itself passes", () => {
    const parsed = post(`title=abcdef&body=${"b".repeat(10_001)}`);
    if (parsed.ok) throw new Error("expected problems");
    expect(parsed.errors.for("title")).toEqual([{ field: "title", kind: "invalid", message: "Title must be at most 5 characters long (this one has 6)." }]);
    expect(parsed.errors.for("body")[0]?.message).toBe("Body must be at most 10,000 characters long (this one has 10,001).");
    expect(post(`title=abcde&body=${"b".repeat(10_000)}`).ok).toBe(true);
  });

  it("reads a textarea's CRLF line breaks as LF, as the browser counted them", () => {
    const parsed = post("title=a&body=one%0D%0Atwo%0Dthree");
    expect(parsed.ok && parsed.draft["body"]).toBe("one\ntwo\nthree");
  });
});

describe("Issue 39, item 8: numbers in a form are read strictly", () => {
  const counted = new Form<Post>({
    ...model,
    fields: [
      { name: "rating", label: "Rating", input: "number", optional: true, describe: "a number" },
      { name: "stars", label: "Stars", input: "number", optional: true, describe: "a whole number", integer: { min: 0, max: 4294967295 } },
      { name: "author", label: "Author", input: "reference", optional: true, describe: "an author", reference: { model: "Author", path: "/authors", onDelete: "restrict" } },
    ],
  });
  const sent = (field: string, text: string) => counted.parse(Fields.parse(`${field}=${encodeURIComponent(text)}`, "form"));
  const problem = (field: string, text: string) => {
    const parsed = sent(field, text);
    return parsed.ok ? undefined : parsed.errors.for(field)[0];
  };

  it.each(["0x1", "1e0", "1.0", "01", "+1", " 1", "1 "])("a whole-number field refuses %j beside the field, saying how to write it", (text) => {
    expect(problem("stars", text)).toEqual({ field: "stars", kind: "unreadable", message: "Stars could not be read as a whole number (digits alone: 7, not 07, 7.0 or +7)." });
  });

  it("a whole-number field takes digits within its type's range, says the range past it, and tells the browser (step, min, max)", () => {
    expect(sent("stars", "7")).toMatchObject({ ok: true, draft: { stars: 7 } });
    expect(sent("stars", "0")).toMatchObject({ ok: true, draft: { stars: 0 } });
    expect(problem("stars", "4294967296")).toEqual({ field: "stars", kind: "invalid", message: "Stars must be a whole number from 0 to 4,294,967,295." });
    expect(renderHtml(counted.render({ action: "/posts", method: "POST", csrf: "t" }))).toContain('name="stars" type="number" step="1" min="0" max="4294967295" value=""');
  });

  it.each(["0x1", "+1", " 1", "1 ", "Infinity", "1e999", "1,5", "0b1"])("a decimal field refuses %j, which Number() would read", (text) => {
    expect(problem("rating", text)).toEqual({ field: "rating", kind: "unreadable", message: "Rating could not be read as a number." });
  });

  it("a decimal field takes what a browser's number input sends: 4, 4.5, .5, -1, 5e-1", () => {
    for (const [text, value] of [["4", 4], ["4.5", 4.5], [".5", 0.5], ["-1", -1], ["5e-1", 0.5]] as const) {
      expect(sent("rating", text)).toMatchObject({ ok: true, draft: { rating: value } });
    }
  });

  it.each(["01", " 1", "+1", "1.0", "0"])("a reference refuses %j: a key is a whole number from 1 in digits alone", (text) => {
    expect(problem("author", text)?.kind).toBe("unreadable");
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
