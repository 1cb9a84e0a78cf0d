/** One `<form>` of a page, as a browser would submit it: its target, its method and the hidden fields it carries. */
export interface PageForm {
  /** The `action`, resolved against the page's path; the page's own path when it has none. */
  readonly action: string;
  /** `get` or `post` (`_method` rides in `fields` for the others). */
  readonly method: "get" | "post";
  /**
   * What the form sends as it stands, by name: its hidden inputs (`_csrf`, `_method`, `next`, …),
   * its other inputs' `value`s, its textareas' text and each select's chosen option (the one
   * marked `selected`, else the first, as a browser sends it).
   */
  readonly fields: Readonly<Record<string, string>>;
  /** The names of every field the form has (inputs of any type but buttons, textareas, selects): what it can be filled in with. */
  readonly names: readonly string[];
  /** Its `enctype` says `multipart/form-data` (a form with a file field): it is sent so, as a browser sends it. */
  readonly multipart: boolean;
}

const FORM = /<form\b([^>]*)>([\s\S]*?)<\/form>/gi;
const INPUT = /<input\b([^>]*?)\/?>/gi;
const TEXTAREA = /<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/gi;
const SELECT = /<select\b([^>]*)>([\s\S]*?)<\/select>/gi;
const OPTION = /<option\b([^>]*)>([\s\S]*?)<\/option>/gi;

/**
 * The forms of an HTML page, in document order. A light reader for fw's own markup (the renderer
 * quotes every attribute with `"` and closes every option), not a general HTML parser: it reads
 * `action`, `method`, the `name`/`value` of inputs (checkboxes only when `checked`), textareas,
 * and the option a select would send.
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
      // A file input sends a file only when one is chosen (`submit`'s fields give it: `testFile(…)`).
      if (type === "submit" || type === "button" || type === "password" || type === "file") continue;
      fields[name] = attribute(input, "value") ?? (type === "checkbox" ? "on" : "");
    }
    for (const [, textarea = "", text = ""] of body.matchAll(TEXTAREA)) {
      const name = attribute(textarea, "name");
      if (name !== undefined) (fields[name] = unescapeHtml(text)), names.add(name);
    }
    for (const [, select = "", options = ""] of body.matchAll(SELECT)) {
      const name = attribute(select, "name");
      if (name === undefined) continue;
      names.add(name);
      const chosen = chosenOption(options, flagged(select, "multiple"));
      if (chosen !== undefined) fields[name] = chosen;
    }
    const multipart = (attribute(attributes, "enctype") ?? "").toLowerCase() === "multipart/form-data";
    forms.push({ action: new URL(action ?? pagePath, `http://page${pagePath}`).pathname + (action?.includes("?") === true ? `?${action.split("?")[1]}` : ""), method, fields, names: [...names], multipart });
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
export function pickForm(forms: readonly PageForm[], fields: Readonly<Record<string, unknown>>, pagePath: string, action?: string): PageForm {
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

/**
 * What a page says was wrong with the form it answered: what a refused submission (a 422) shows
 * beside its fields and above the form.
 */
export interface Refusal {
  /**
   * Each refused field's name → why: the text of the element its `aria-describedby` names (fw's
   * derived and sign-in forms tie each message to its field so). A control marked
   * `aria-invalid="true"` that names no message says so instead.
   */
  readonly fields: Readonly<Record<string, string>>;
  /** The page's alerts (`role="alert"`): what is wrong with the form as a whole ("That email or password is wrong."). */
  readonly alerts: readonly string[];
}

const CONTROL = /<(?:input|textarea|select)\b([^>]*)>/gi;
const ALERT = /<([A-Za-z][A-Za-z0-9-]*)\b[^>]*\srole="alert"[^>]*>([\s\S]*?)<\/\1>/gi;

/**
 * The refusal an HTML page shows (see `Refusal`): empty when it marks no field invalid and has
 * no alert. The same light reader as `formsOf`, for fw's own markup.
 */
export function refusalOf(html: string): Refusal {
  const fields: Record<string, string> = {};
  for (const [, attributes = ""] of html.matchAll(CONTROL)) {
    const name = attribute(attributes, "name");
    if (name === undefined || attribute(attributes, "aria-invalid") !== "true") continue;
    const ids = (attribute(attributes, "aria-describedby") ?? "").split(/\s+/).filter((id) => id !== "");
    const said = ids.map((id) => textOfId(html, id)).filter((text): text is string => text !== undefined && text !== "");
    fields[name] = said.length > 0 ? said.join(" ") : "(marked invalid; no message is tied to it with aria-describedby)";
  }
  const alerts = [...html.matchAll(ALERT)].map(([, , inner = ""]) => plainText(inner)).filter((text) => text !== "");
  return { fields, alerts };
}

/** One line saying what a refusal refused: `title: Title is required.; body: …` (alerts first); "" when nothing. */
export function describeRefusal(refusal: Refusal): string {
  return [...refusal.alerts, ...Object.entries(refusal.fields).map(([name, why]) => `${name}: ${why}`)].join("; ");
}

/** The detail of an fw problem page (`<p class="fw-problem-detail">`), if the page is one. */
export function problemDetailOf(html: string): string | undefined {
  const found = /<p class="fw-problem-detail">([\s\S]*?)<\/p>/.exec(html);
  return found === null ? undefined : plainText(found[1] ?? "");
}

/** The text of the element with this `id`, tags dropped and spaces collapsed. */
function textOfId(html: string, id: string): string | undefined {
  const quoted = markupOf(id).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const found = new RegExp(`<([A-Za-z][A-Za-z0-9-]*)\\b[^>]*\\sid="${quoted}"[^>]*>([\\s\\S]*?)<\\/\\1>`, "i").exec(html);
  return found === null ? undefined : plainText(found[2] ?? "");
}

/**
 * The value a select sends: its option marked `selected` (the last one, as a browser keeps it),
 * else the first option that is not disabled (a select without `multiple` always sends one);
 * nothing for an empty select, or a `multiple` one with none selected. An option without `value`
 * sends its text.
 */
function chosenOption(options: string, multiple: boolean): string | undefined {
  const all = [...options.matchAll(OPTION)].map(([, attributes = "", text = ""]) => ({
    value: attribute(attributes, "value") ?? plainText(text),
    selected: flagged(attributes, "selected"),
    disabled: flagged(attributes, "disabled"),
  }));
  const selected = all.filter((option) => option.selected);
  if (multiple) return selected[0]?.value;
  return (selected[selected.length - 1] ?? all.find((option) => !option.disabled))?.value;
}

/** Whether a tag's attributes hold the boolean attribute `name` (outside any quoted value). */
function flagged(attributes: string, name: string): boolean {
  return new RegExp(`\\s${name}(?=[\\s=/>]|$)`, "i").test(` ${attributes.replace(/"[^"]*"/g, '""')}`);
}

function plainText(markup: string): string {
  return unescapeHtml(markup.replace(/<[^>]*>/g, "")).replace(/\s+/g, " ").trim();
}

function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`, "i").exec(` ${attributes}`);
  return match?.[1] === undefined ? undefined : unescapeHtml(match[1]);
}

/** Text as fw's renderer writes it in an attribute value. */
function markupOf(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char] ?? char);
}

/** The character references fw's renderer writes. */
function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'" })[name] ?? "");
}
