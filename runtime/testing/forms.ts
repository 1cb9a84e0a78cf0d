/** One `<form>` of a page, as a browser would submit it: its target, its method and the hidden fields it carries. */
export interface PageForm {
  /** The `action`, resolved against the page's path; the page's own path when it has none. */
  readonly action: string;
  /** `get` or `post` (`_method` rides in `fields` for the others). */
  readonly method: "get" | "post";
  /** The form's hidden inputs by name (`_csrf`, `_method`, `next`, …) and its other inputs' `value`s. */
  readonly fields: Readonly<Record<string, string>>;
  /** The names of every field the form has (inputs of any type but buttons, textareas, selects): what it can be filled in with. */
  readonly names: readonly string[];
}

const FORM = /<form\b([^>]*)>([\s\S]*?)<\/form>/gi;
const INPUT = /<input\b([^>]*?)\/?>/gi;
const TEXTAREA = /<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/gi;
const SELECT = /<select\b([^>]*)>/gi;

/**
 * The forms of an HTML page, in document order. A light reader for fw's own markup (the renderer
 * quotes every attribute with `"`), not a general HTML parser: it reads `action`, `method`, and
 * the `name`/`value` of inputs (checkboxes only when `checked`) and textareas.
 */
export function formsOf(html: string, pagePath: string): PageForm[] {
  const forms: PageForm[] = [];
  for (const [, attributes = "", body = ""] of html.matchAll(FORM)) {
    const action = attribute(attributes, "action");
    const method = (attribute(attributes, "method") ?? "get").toLowerCase() === "post" ? "post" : "get";
    const fields: Record<string, string> = {};
    const names = new Set<string>();
    for (const [, input = ""] of body.matchAll(INPUT)) {
      const name = attribute(input, "name");
      if (name === undefined) continue;
      const type = (attribute(input, "type") ?? "text").toLowerCase();
      if (type !== "submit" && type !== "button" && type !== "reset" && type !== "image") names.add(name);
      if ((type === "checkbox" || type === "radio") && !/\schecked\b/i.test(input)) continue;
      if (type === "submit" || type === "button" || type === "password") continue;
      fields[name] = attribute(input, "value") ?? (type === "checkbox" ? "on" : "");
    }
    for (const [, textarea = "", text = ""] of body.matchAll(TEXTAREA)) {
      const name = attribute(textarea, "name");
      if (name !== undefined) (fields[name] = unescapeHtml(text)), names.add(name);
    }
    for (const [, select = ""] of body.matchAll(SELECT)) {
      const name = attribute(select, "name");
      if (name !== undefined) names.add(name);
    }
    forms.push({ action: new URL(action ?? pagePath, `http://page${pagePath}`).pathname + (action?.includes("?") === true ? `?${action.split("?")[1]}` : ""), method, fields, names: [...names] });
  }
  return forms;
}

/**
 * The form `submit` fills in: the one whose action is `action` when given; else, among the forms
 * that carry a CSRF token (all of them when none does), the one that has a field for every name
 * in `fields` (reserved `_` names aside). Several such forms posting to different places (a page
 * with its own form and the layout's Sign out form, given no fields) is a mistake in the test,
 * not a guess to make: it throws naming their actions and how to pick one. Throws when none fits.
 */
export function pickForm(forms: readonly PageForm[], fields: Readonly<Record<string, string>>, pagePath: string, action?: string): PageForm {
  const listed = forms.map((f) => `${f.method.toUpperCase()} ${f.action}`).join(", ") || "none";
  if (action !== undefined) {
    const form = forms.find((candidate) => candidate.action === action);
    if (form === undefined) throw new Error(`fw/testing: ${pagePath} has no form with action ${action} (forms: ${listed})`);
    return form;
  }
  const guarded = forms.filter((candidate) => candidate.fields["_csrf"] !== undefined);
  const wanted = Object.keys(fields).filter((name) => !name.startsWith("_"));
  const fitting = (guarded.length > 0 ? guarded : forms).filter((candidate) => wanted.every((name) => candidate.names.includes(name)));
  const first = fitting[0];
  if (first === undefined) {
    const what = wanted.length === 0 ? "" : ` with fields ${wanted.join(", ")}`;
    throw new Error(`fw/testing: ${pagePath} has no form${what} (forms: ${listed}); pass { action } to name the form`);
  }
  const places = [...new Set(fitting.map((f) => f.action))];
  if (places.length > 1) {
    throw new Error(`fw/testing: ${pagePath} has ${fitting.length} forms that could take ${wanted.length === 0 ? "no fields" : wanted.join(", ")} (actions ${places.join(", ")}); pass { action: "${first.action}" } (or another) to pick one`);
  }
  return first;
}

function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`, "i").exec(` ${attributes}`);
  return match?.[1] === undefined ? undefined : unescapeHtml(match[1]);
}

/** The character references fw's renderer writes. */
function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'" })[name] ?? "");
}
