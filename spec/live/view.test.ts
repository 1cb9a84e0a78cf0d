import { describe, expect, it } from "vitest";
import { Request } from "../../runtime/http/request.js";
import { raw, renderHtml } from "../../runtime/html/render.js";
import { FromPath, type ModelSpec } from "../../runtime/index.js";
import { live, livePageRoutes, liveSocketRoute, type LiveMount } from "../../runtime/live/index.js";
import { liveView } from "../../runtime/live/view.js";
import { Session } from "../../runtime/http/session.js";

const Note: ModelSpec<{ id: number; text: string }> = {
  name: "Note",
  fqn: "models.Note",
  path: "/notes",
  key: "id",
  fields: [{ name: "text", label: "Text", input: "text", optional: false, describe: "text", maxLength: 10 }],
  validate: (input) => ({ success: true, data: input as { id: number; text: string } }),
  decodeKey: FromPath.int,
};

const mount: LiveMount<Record<string, never>> = { id: "notes.New", path: "/notes/new", capabilities: {}, forms: { save: Note }, source: "src/app/notes/New.tsx" };

describe("fw/live view.form", () => {
  it("renders the model's form posting to the page, with fw-submit, fw-change, _fw_event and the session's token", () => {
    const request = new Request({ path: "/notes/new", session: Session.empty });
    const html = renderHtml(liveView(mount, request, "/notes/new?x=1").form("save", { values: { text: "hi" }, change: "check", submit: "Add" }));
    expect(html).toContain('<form method="post" action="/notes/new" class="fw-form" novalidate fw-submit="save" fw-change="check">');
    expect(html).toContain('<input type="hidden" name="_fw_event" value="save">');
    expect(html).toContain('value="hi"');
    expect(html).toContain(">Add</button>");
  });

  it("an event with no model bound fails with a message naming the page, the event and the fix", () => {
    const view = liveView(mount, new Request({ path: "/notes/new" }), "/notes/new");
    expect(() => view.form("publish")).toThrow(/view\.form\("publish"\) in src\/app\/notes\/New\.tsx: no model form is bound to the event "publish".*FormInput<Model>/);
  });

  it("a page id that is not one path segment is refused when the table is built, naming the file", () => {
    const page = live({ mount: () => ({}), render: () => raw("") });
    expect(() => livePageRoutes(page, { ...mount, id: "notes/New" })).toThrow(/the page id "notes\/New" of src\/app\/notes\/New\.tsx/);
    expect(() => liveSocketRoute(page, { ...mount, id: "" })).toThrow(/is not one path segment/);
  });
});
