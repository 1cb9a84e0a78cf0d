import type { Fields } from "../http/fields.js";
import type { Method } from "../http/method.js";
import { readWholeNumber, UINT32_MAX } from "../http/number-text.js";
import type { Html } from "../html/node.js";
import { FormErrors, ruleMessage, type FieldProblem } from "./form-errors.js";
import type { FieldSpec, ModelSpec } from "./model.js";
import type { StoredFile } from "./file-types.js";
import { isStoredFile, KEPT_PREFIX, REMOVE_PREFIX, sizeText } from "./model-files.js";
import { referenceInput, referencesInput, type Choices } from "./reference-input.js";
import type { Draft } from "./store.js";

/** What the user typed (or a row's values), as text per field name: what a form shows. */
export type Values = Readonly<Record<string, string>>;

/** A field (spec 2.15) with its `absent` answer: what a submission without it means. */
export interface Field extends FieldSpec {
  /** `{ value: undefined }` for an optional field (`x?: boolean` too), `{ value: false }` for a boolean (an unchecked box is omitted), undefined when required. */
  absent(): { readonly value: unknown } | undefined;
}

export type Parsed<A> =
  | { readonly ok: true; readonly draft: Draft<A> }
  | { readonly ok: false; readonly errors: FormErrors; readonly values: Values };

export interface RenderProps {
  readonly action: string;
  /** PUT, PATCH and DELETE are sent as a POST carrying `_method`: only the form knows. */
  readonly method: Method;
  /** Required: the form returns it in `_csrf` (spec 5.8). */
  readonly csrf: string;
  readonly values?: Values;
  readonly errors?: FormErrors;
  readonly submit?: string;
  /**
   * The version of the row the form edits (a store with `read`): sent back in the reserved
   * hidden field `_version`, so Update can refuse a change based on a stale read (409).
   */
  readonly version?: number;
  /** A message about the whole form, shown above its fields (`role="alert"`): a conflict, a value taken. */
  readonly message?: string;
  /**
   * fw/live's form events: `fw-submit` (and `fw-change`) on the `<form>`, and the event's name in
   * the reserved hidden field `_fw_event`, which the page's no-JavaScript POST reads.
   */
  readonly events?: LiveFormEvents;
  /**
   * Per reference field, the rows its picker offers (loaded by the derived pages, which know the
   * viewer): a select of labelled rows or a search input. A reference without choices is a
   * number input taking the key.
   */
  readonly choices?: Readonly<Record<string, Choices>>;
  /**
   * Per file field, what the form shows beside its file input: the row's current file (Edit),
   * or an upload a failed submission kept (sent back in `_kept.<field>`, so it is not sent again).
   */
  readonly files?: Readonly<Record<string, FileShown>>;
}

/** What a file field's input shows besides itself. */
export interface FileShown {
  /** The file the row holds now, where it is served, and an image's thumbnail. */
  readonly current?: { readonly file: StoredFile; readonly href: string; readonly thumb?: string };
  /** An upload a failed submission kept, and the reference that brings it back. */
  readonly kept?: { readonly file: StoredFile; readonly ref: string };
}

/** The live events a form sends (fw/live's `view.form`). */
export interface LiveFormEvents {
  readonly submit: string;
  readonly change?: string;
}

/** The reserved hidden field a live form names its event in. */
export const EVENT_FIELD = "_fw_event";

/** The reserved hidden field an edit form carries the row's version in. */
export const VERSION_FIELD = "_version";

/** What `Form.button` takes: where the one-button form goes, its verb, the CSRF token, its label. */
export interface ButtonProps {
  readonly action: string;
  readonly method: Method;
  readonly csrf: string;
  readonly submit: string;
  readonly class?: string;
}

/**
 * The one place that writes a `<form>` element (spec 2.15): GET and POST as themselves, any
 * other verb as a POST carrying the reserved `_method`, the CSRF token in `_csrf`.
 */
function formElement(props: Omit<RenderProps, "values" | "errors" | "choices" | "files"> & { readonly class?: string; readonly multipart?: boolean }, fields: readonly Html[]): Html {
  const override = props.method !== "GET" && props.method !== "POST";
  // A form with a file field sends multipart (the only way a browser sends a file), and shows its progress (upload-script.ts).
  const enctype = props.multipart === true ? "multipart/form-data" : undefined;
  return (
    <form method={props.method === "GET" ? "get" : "post"} action={props.action} class={props.class} enctype={enctype} data-fw-upload={props.multipart === true ? "" : undefined} novalidate={fields.length > 0 ? true : undefined} fw-submit={props.events?.submit} fw-change={props.events?.change}>
      {props.message === undefined ? null : <p class="fw-form-error" role="alert">{props.message}</p>}
      {override ? <input type="hidden" name="_method" value={props.method} /> : null}
      <input type="hidden" name="_csrf" value={props.csrf} />
      {props.events === undefined ? null : <input type="hidden" name={EVENT_FIELD} value={props.events.submit} />}
      {props.version === undefined ? null : <input type="hidden" name={VERSION_FIELD} value={String(props.version)} />}
      {fields}
      <button type="submit">{props.submit ?? "Save"}</button>
    </form>
  );
}

const TRUE = new Set(["true", "on", "1", "yes"]);
const FALSE = new Set(["false", "off", "0", "no"]);

/**
 * A model's HTML form (spec 2.15): renders the whole `<form>` and parses a submission back.
 * The key is never rendered nor read from the form.
 */
export class Form<A> {
  /** The fields the form edits: every field but those the server sets (`serverSet`). */
  readonly fields: readonly Field[];
  /** Every field, those the server sets included: what Index and Show display. */
  readonly shown: readonly Field[];

  constructor(readonly model: ModelSpec<A>) {
    this.shown = model.fields.map((spec) => ({ ...spec, absent: () => absentOf(spec) }));
    this.fields = this.shown.filter((field) => field.serverSet === undefined);
  }

  /** Column headings for derived index and show pages. */
  get headings(): readonly string[] {
    return this.shown.map((field) => field.label);
  }

  render(props: RenderProps): Html {
    const errors = props.errors ?? FormErrors.none;
    const fields = this.fields.map((field) =>
      field.input === "file" ? this.renderFile(field, errors.for(field.name), props.files?.[field.name]) : this.renderField(field, props.values?.[field.name], errors.for(field.name), props.choices?.[field.name]),
    );
    return formElement({ ...props, class: "fw-form", multipart: this.fields.some((field) => field.input === "file") }, fields);
  }

  /**
   * A form with no fields, one button (Show's Delete): the same verb and CSRF handling as
   * `render`, so a DELETE travels as a POST carrying `_method` without the page knowing.
   */
  static button(props: ButtonProps): Html {
    return formElement(props, []);
  }

  /**
   * Reads a submission: each field from the form text, then the model's own rules (typia). On
   * failure, the values as typed come back with the problems, to re-render the form.
   */
  parse(form: Fields): Parsed<A> {
    const draft: Record<string, unknown> = {};
    const problems: FieldProblem[] = [];
    const typed: Record<string, string> = {};
    for (const field of this.fields) {
      // A file arrives beside the form's text (request.files): the derived pages read it (model-files.ts).
      if (field.input === "file") continue;
      const raw = field.input === "references" ? listText(form.getAll(field.name)) : form.get(field.name);
      if (raw !== undefined) typed[field.name] = asTyped(raw);
      const read = field.input === "references" ? readKeys(field, raw) : readField(field, raw);
      if ("problem" in read) problems.push(read.problem);
      else if (read.value !== undefined) draft[field.name] = read.value;
    }
    // The model's rules run even when a field could not be read, so one answer names every
    // field's problems; a field already refused is not refused twice (typia would call a
    // missing one "expected string").
    const checked = this.model.validate(draft);
    if (checked.success && problems.length === 0) return { ok: true, draft: checked.data as Draft<A> };
    if (!checked.success) {
      const refused = new Set(problems.map((problem) => problem.field));
      for (const error of checked.errors) {
        const problem = this.ruleProblem(error.path, error.expected, error.value);
        if (!refused.has(problem.field)) problems.push(problem);
      }
    }
    return { ok: false, errors: new FormErrors(problems), values: typed };
  }

  /** The fields' text as submitted, to show a form again as the user typed it. */
  typed(form: Fields): Values {
    const out: Record<string, string> = {};
    for (const field of this.fields) {
      if (field.input === "file") continue;
      const raw = field.input === "references" ? listText(form.getAll(field.name)) : form.get(field.name);
      if (raw !== undefined) out[field.name] = asTyped(raw);
    }
    return out;
  }

  /** A row's values as form text, to fill an edit form. */
  values(row: A): Values {
    const out: Record<string, string> = {};
    for (const field of this.fields) if (field.input !== "file") out[field.name] = formText(field, (row as Record<string, unknown>)[field.name]);
    return out;
  }

  /** A row's value of one field as people read it (index and show pages). */
  display(row: A, field: Field): string {
    const value = (row as Record<string, unknown>)[field.name];
    if (field.input === "checkbox") return value === true ? "Yes" : "No";
    if (field.input === "file") return isStoredFile(value) ? `${value.name} (${sizeText(value.size)})` : "";
    // A server-set time is an instant: shown to the minute, in UTC.
    if ((field.serverSet === "createdAt" || field.serverSet === "updatedAt") && value instanceof Date) return `${value.toISOString().slice(0, 16).replace("T", " ")} UTC`;
    return formText(field, value);
  }

  private ruleProblem(path: string, expected: string, value: unknown): FieldProblem {
    const name = path.replace(/^\$input\.?/, "").split(/[.[]/)[0] ?? "";
    const field = this.fields.find((f) => f.name === name);
    return { field: name, kind: "invalid", message: `${field?.label ?? name} ${ruleMessage(expected, value)}.` };
  }

  /**
   * A file field: its `<input type="file">` (the types it takes in `accept`, required while
   * nothing is there yet), the row's current file, an upload kept from a failed submission, and
   * for an optional field with a file, a box to remove it.
   */
  private renderFile(field: Field, problems: readonly FieldProblem[], shown: FileShown | undefined): Html {
    const id = `${this.model.name.toLowerCase()}-${field.name}`;
    const described = problems.length > 0 ? `${id}-error` : undefined;
    const kept = shown?.kept;
    const current = shown?.current;
    const has = kept !== undefined || current !== undefined;
    return (
      <div class="fw-field fw-field-file">
        <label for={id}>{field.label}</label>
        {current === undefined || kept !== undefined ? null : (
          <p class="fw-file-current">
            {current.thumb === undefined ? null : <img src={current.thumb} alt="" class="fw-thumb" />}
            <a href={current.href}>{current.file.name}</a> ({sizeText(current.file.size)})
          </p>
        )}
        {kept === undefined ? null : (
          <p class="fw-file-kept">
            <input type="hidden" name={`${KEPT_PREFIX}${field.name}`} value={kept.ref} />
            {kept.file.name} ({sizeText(kept.file.size)}) is kept: choose another file to replace it.
          </p>
        )}
        <input
          type="file"
          id={id}
          name={field.name}
          accept={(field.file?.accept ?? []).join(",") || undefined}
          required={!field.optional && !has ? true : undefined}
          aria-invalid={problems.length > 0 ? "true" : undefined}
          aria-describedby={described}
          data-fw-max-bytes={field.file === undefined ? undefined : String(field.file.maxBytes)}
        />
        {field.optional && has ? (
          <label class="fw-file-remove">
            <input type="checkbox" name={`${REMOVE_PREFIX}${field.name}`} value="true" /> Remove the file
          </label>
        ) : null}
        {problems.length === 0 ? null : (
          <p class="fw-field-error" id={described}>
            {problems.map((problem) => problem.message).join(" ")}
          </p>
        )}
      </div>
    );
  }

  private renderField(field: Field, value: string | undefined, problems: readonly FieldProblem[], choices: Choices | undefined): Html {
    const id = `${this.model.name.toLowerCase()}-${field.name}`;
    const described = problems.length > 0 ? `${id}-error` : undefined;
    const common = { id, name: field.name, "aria-invalid": problems.length > 0 ? "true" : undefined, "aria-describedby": described };
    return (
      <div class={`fw-field fw-field-${field.input}`}>
        <label for={id}>{field.label}</label>
        {field.input === "reference" ? referenceInput(field, value, common, choices) : field.input === "references" ? referencesInput(field, value, common, choices) : inputFor(field, value, common)}
        {problems.length === 0 ? null : (
          <p class="fw-field-error" id={described}>
            {problems.map((problem) => problem.message).join(" ")}
          </p>
        )}
      </div>
    );
  }
}

type Common = Readonly<Record<string, string | undefined>>;

function inputFor(field: Field, value: string | undefined, common: Common): Html {
  const required = !field.optional && field.input !== "checkbox";
  switch (field.input) {
    case "textarea":
      return <textarea {...common} required={required} maxlength={field.maxLength} rows={6}>{value ?? ""}</textarea>;
    case "checkbox":
      return <input {...common} type="checkbox" value="true" checked={value !== undefined && TRUE.has(value)} />;
    case "select":
      return (
        <select {...common} required={required}>
          {field.optional || value === undefined || !(field.options ?? []).includes(value) ? (
            // Kept whenever the value is not one of the options (nothing chosen yet, or an empty
            // submission), so the browser does not show the first option as if it had been sent.
            <option value="" selected={value === undefined || value === ""}>{field.optional ? "(none)" : "Choose…"}</option>
          ) : null}
          {(field.options ?? []).map((option) => <option value={option} selected={option === value}>{option}</option>)}
        </select>
      );
    case "number":
      // A whole-number field says so to the browser, which then refuses 1.5 or a number out of range before sending.
      return field.integer === undefined ? (
        <input {...common} type="number" step="any" value={value ?? ""} required={required} />
      ) : (
        <input {...common} type="number" step="1" min={String(field.integer.min)} max={String(field.integer.max)} value={value ?? ""} required={required} />
      );
    case "date":
      return <input {...common} type="date" value={value ?? ""} required={required} />;
    case "text":
      return <input {...common} type="text" value={value ?? ""} required={required} maxlength={field.maxLength} />;
    case "reference":
      return referenceInput(field, value, common, undefined);
    case "references":
      return referencesInput(field, value, common, undefined);
    case "file":
      throw new Error("unreachable: a file field is rendered by renderFile");
  }
}

/**
 * Spec 2.15's `absent` table: an optional field (`Option[X]`, an optional boolean included)
 * reads undefined; a required boolean false (an unchecked box is omitted); anything else is required.
 */
function absentOf(field: FieldSpec): { value: unknown } | undefined {
  // A list sent with nothing chosen (a `<select multiple>` sends nothing then) is the empty list.
  if (field.input === "references") return { value: [] };
  if (field.optional) return { value: undefined };
  if (field.input === "checkbox") return { value: false };
  return undefined;
}

type Read = { readonly value: unknown } | { readonly problem: FieldProblem };

/**
 * One field's text as its type. Missing → the `absent` rule, and empty text is missing too,
 * for every kind of input (a browser always sends text inputs, empty ones included): undefined
 * for an optional field, "is required" for a required one, as the rendered `required`
 * attribute says (docs/guides/models-and-forms.md).
 */
function readField(field: FieldSpec, raw: string | undefined): Read {
  const required = (): Read => ({ problem: { field: field.name, kind: "required", message: `${field.label} is required.` } });
  const unreadable = (): Read => ({ problem: { field: field.name, kind: "unreadable", message: `${field.label} could not be read as ${field.describe}.` } });
  if (raw === undefined || raw === "") return absentOf(field) ?? required();
  switch (field.input) {
    case "text":
      return storableText(field, raw);
    case "textarea":
      // Browsers send a textarea's line breaks as CRLF but count them as one against `maxlength`.
      return storableText(field, raw.replace(/\r\n?/g, "\n"));
    case "checkbox":
      return TRUE.has(raw) ? { value: true } : FALSE.has(raw) ? { value: false } : unreadable();
    case "number":
      return field.integer === undefined ? readDecimal(raw) ?? unreadable() : readInteger(field, field.integer, raw);
    case "select":
      return field.options?.includes(raw) === true ? { value: raw } : unreadable();
    case "date": {
      const value = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? new Date(`${raw}T00:00:00Z`) : undefined;
      return value !== undefined && !Number.isNaN(value.getTime()) && value.toISOString().startsWith(raw) ? { value } : unreadable();
    }
    case "reference": {
      // A key: a whole number from 1 (what `Id` holds), in digits alone; anything else names no row.
      const key = readWholeNumber(raw, 1, UINT32_MAX);
      return key === undefined ? unreadable() : { value: key };
    }
    case "references":
      return readKeys(field, raw);
    case "file":
      return unreadable(); // never read from text: parse skips file fields
  }
}

/** The most keys one list field takes from a form: past it, the submission is refused (a list of 10,000 tags is no one's choice). */
export const MAX_LIST_KEYS = 1000;

/** A list field's values as one text: each value sent (a `<select multiple>` sends one per choice), joined by commas. */
function listText(values: readonly string[]): string | undefined {
  return values.length === 0 ? undefined : values.join(",");
}

/**
 * A list of keys (`tags: Id<Tag>[]`): whole numbers from 1 separated by commas (or sent one per
 * value), each once, in the order given; nothing is the empty list.
 */
function readKeys(field: FieldSpec, raw: string | undefined): Read {
  const parts = (raw ?? "").split(",").map((part) => part.trim()).filter((part) => part !== "");
  if (parts.length > MAX_LIST_KEYS) return { problem: { field: field.name, kind: "invalid", message: `${field.label} may list at most ${MAX_LIST_KEYS.toLocaleString("en-US")} rows.` } };
  const keys: number[] = [];
  for (const part of parts) {
    const key = readWholeNumber(part, 1, UINT32_MAX);
    if (key === undefined) return { problem: { field: field.name, kind: "unreadable", message: `${field.label} could not be read as ${field.describe}: ${JSON.stringify(part.slice(0, 20))} is not the number of a row.` } };
    if (!keys.includes(key)) keys.push(key);
  }
  return { value: keys };
}

/**
 * A decimal number as a browser's number input sends one (HTML's "valid floating-point number":
 * `-1.5`, `.5`, `1e3`), finite; not `0x10`, `+1`, `Infinity` or text with spaces, which
 * `Number()` would take.
 */
function readDecimal(raw: string): Read | undefined {
  if (!/^-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? { value } : undefined;
}

/** A whole number in the field's range, written in digits alone (runtime/http/number-text.ts: `07`, `7.0`, ` 7` are not). */
function readInteger(field: FieldSpec, range: NonNullable<FieldSpec["integer"]>, raw: string): Read {
  const value = readWholeNumber(raw, range.min, range.max);
  if (value !== undefined) return { value };
  const problem = (kind: FieldProblem["kind"], message: string): Read => ({ problem: { field: field.name, kind, message } });
  if (readWholeNumber(raw, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) === undefined) {
    return problem("unreadable", `${field.label} could not be read as a whole number (digits alone: 7, not 07, 7.0 or +7).`);
  }
  const [min, max] = [range.min, range.max].map((n) => n.toLocaleString("en-US"));
  return problem("invalid", `${field.label} must be a whole number from ${min} to ${max}.`);
}

/** A field's text to show again: a NUL (refused) as U+FFFD, as a browser would show it, never in the page itself. */
function asTyped(raw: string): string {
  return raw.includes("\u0000") ? raw.replaceAll("\u0000", "\uFFFD") : raw;
}

/**
 * Text a store can keep: without U+0000, which no browser sends from a field and PostgreSQL
 * cannot hold in a text (it would refuse the write), and no longer than the field's
 * `maxLength` (spec: every string field has one; docs/guides/models-and-forms.md), counted in
 * characters (code points) as JSON Schema, typia's tags as fw compiles them and a `varchar` count
 * them: an emoji is one, where JavaScript's `length` says 2.
 */
function storableText(field: FieldSpec, text: string): Read {
  if (text.includes("\u0000")) {
    return { problem: { field: field.name, kind: "invalid", message: `${field.label} contains a NUL character (U+0000), which cannot be stored: remove it.` } };
  }
  // No string has more code points than code units: most are settled without counting.
  if (field.maxLength === undefined || text.length <= field.maxLength) return { value: text };
  const characters = [...text].length;
  if (characters <= field.maxLength) return { value: text };
  const limit = field.maxLength.toLocaleString("en-US");
  const length = characters.toLocaleString("en-US");
  return { problem: { field: field.name, kind: "invalid", message: `${field.label} must be at most ${limit} characters long (this one has ${length}).` } };
}

function formText(field: FieldSpec, value: unknown): string {
  if (value === undefined || value === null) return "";
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (Array.isArray(value)) return value.map(String).join(",");
  if (field.input === "checkbox") return value === true ? "true" : "";
  return String(value);
}
