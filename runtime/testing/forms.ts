/** One `<form>` of a page, as a browser would submit it: its target, its method and the hidden fields it carries. */
export interface PageForm {
  /** The `action`, resolved against the page's path; the page's own path when it has none. */
  readonly action: string;
  /** `get` or `post` (`_method` rides in `fields` for the others). */
  readonly method: "get" | "post";
  /** The form's hidden inputs by name (`_csrf`, `_method`, `next`, …) and its other inputs' `value`s. */
  readonly fields: Readonly<Record<string, string>>;
}

const FORM = /<form\b([^>]*)>([\s\S]*?)<\/form>/gi;
const INPUT = /<input\b([^>]*?)\/?>/gi;
const TEXTAREA = /<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/gi;

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
    for (const [, input = ""] of body.matchAll(INPUT)) {
      const name = attribute(input, "name");
      if (name === undefined) continue;
      const type = (attribute(input, "type") ?? "text").toLowerCase();
      if ((type === "checkbox" || type === "radio") && !/\schecked\b/i.test(input)) continue;
      if (type === "submit" || type === "button" || type === "password") continue;
      fields[name] = attribute(input, "value") ?? (type === "checkbox" ? "on" : "");
    }
    for (const [, textarea = "", text = ""] of body.matchAll(TEXTAREA)) {
      const name = attribute(textarea, "name");
      if (name !== undefined) fields[name] = unescapeHtml(text);
    }
    forms.push({ action: new URL(action ?? pagePath, `http://page${pagePath}`).pathname + (action?.includes("?") === true ? `?${action.split("?")[1]}` : ""), method, fields });
  }
  return forms;
}

function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`, "i").exec(` ${attributes}`);
  return match?.[1] === undefined ? undefined : unescapeHtml(match[1]);
}

/** The character references fw's renderer writes. */
function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'" })[name] ?? "");
}
