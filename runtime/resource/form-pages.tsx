import { BadRequest, NotFound } from "../http/failure.js";
import type { Request } from "../http/request.js";
import { status, type Response } from "../http/response.js";
import type { Html } from "../html/node.js";
import { VERSION_FIELD, type FileShown, type Values } from "./form.js";
import type { StoredFile } from "./file-types.js";
import { filesOf, isStoredFile, type ReceivedFiles } from "./model-files.js";
import { uploadScriptUrl } from "./upload-script.js";
import { FormErrors, type FieldProblem } from "./form-errors.js";
import type { ModelPages } from "./model-pages.js";
import { modelHref } from "./model-paths.js";
import { keyText, noSuch, type ResolvedForm } from "./picker.js";
import { pickerScriptUrl } from "./picker-script.js";
import type { Choices } from "./reference-input.js";
import { Conflict, DuplicateValue, MissingReference } from "./store-errors.js";
import type { Draft } from "./store.js";
import type { Id } from "./types.js";
import { listed } from "./words.js";

/** How a form is shown again: the version it carries, its status, a message about the whole form. */
interface FormState {
  readonly version?: number | undefined;
  readonly status?: number;
  readonly message?: string;
  /** Choices a submission brought (a search's matches), in place of a field's usual picker. */
  readonly choices?: Readonly<Record<string, Choices>>;
  /** Uploads a failed submission stored: the re-shown form keeps them (`_kept.<field>`). */
  readonly uploads?: Readonly<Record<string, StoredFile>>;
}

/** A submission read whole: its draft (files included), or its problems with what was typed and uploaded. */
type Read<A> =
  | { readonly draft: Draft<A>; readonly values: Values; readonly files: Readonly<Record<string, StoredFile | null>> }
  | { readonly errors: FormErrors; readonly values: Values; readonly choices: ResolvedForm["choices"]; readonly uploads: Readonly<Record<string, StoredFile>> };

/** The derived New, Edit, Create and Update: the model's form, its references picked from labelled rows the viewer may read. */
export class FormPages<A> {
  constructor(private readonly pages: ModelPages<A>) {}

  /** New: a blank form; `?post=7` pre-selects a reference (a row the viewer may read; a value that is no key is a 400). */
  async fresh(request: Request): Promise<Response> {
    const values: Record<string, string> = {};
    for (const field of this.pages.references) {
      const text = request.query.get(field.name);
      if (text === undefined || field.serverSet !== undefined) continue;
      if (keyText(text) === undefined) {
        throw new BadRequest(`The new ${this.pages.words.lower} form's ?${field.name}= pre-selects its ${field.label.toLowerCase()} by number (a whole number from 1), not ${JSON.stringify(text.slice(0, 40))}.`);
      }
      values[field.name] = String(keyText(text));
    }
    return this.newForm(request, values, FormErrors.none, {}, true);
  }

  private async newForm(request: Request, values: Values, errors: FormErrors, state: FormState = {}, preselected = false): Promise<Response> {
    const { words, model } = this.pages;
    const message = this.aboutTheForm(errors);
    const choices = await this.choices(request, values, state.choices);
    const shown = preselected ? withoutHidden(values, choices) : values;
    const files = this.pages.fileFields.length === 0 ? undefined : await this.filesShown(request, undefined, state.uploads);
    return status(
      errors.isEmpty ? 200 : 422,
      <>
        <title>{`New ${words.lower}`}</title>
        <h1>New {words.lower}</h1>
        {this.pages.form.render({ action: modelHref(request, model, "Create"), method: "POST", csrf: request.csrf, values: shown, errors, choices, files, submit: `Create ${words.lower}`, ...(message === undefined ? {} : { message }) })}
        {uploadScript(files)}
        {script(choices)}
        {this.pages.backLink(request)}
      </>,
    );
  }

  /**
   * The edit form, filled from the row; after a failed Update, with what was typed and why,
   * carrying the version the user's change is based on (`state.version`), or after a conflict
   * the row's current one, so saving again is a deliberate overwrite.
   */
  async edit(request: Request, values?: Values, errors = FormErrors.none, state: FormState = {}): Promise<Response> {
    const { words, model } = this.pages;
    const key = this.pages.keyOf(request);
    const row = await this.pages.writable(request, "Edit", key);
    const version = state.version ?? (await this.versionOf(key));
    const message = state.message ?? this.aboutTheForm(errors);
    const shown = values ?? this.pages.form.values(row);
    const choices = await this.choices(request, shown, state.choices);
    const files = this.pages.fileFields.length === 0 ? undefined : await this.filesShown(request, row, state.uploads);
    return status(
      state.status ?? (errors.isEmpty ? 200 : 422),
      <>
        <title>{`Edit ${words.lower} ${String(key)}`}</title>
        <h1>Edit {words.lower} {String(key)}</h1>
        {this.pages.form.render({
          action: this.pages.at(request, key),
          method: "PUT",
          csrf: request.csrf,
          values: shown,
          errors,
          choices,
          files,
          submit: `Update ${words.lower}`,
          ...(version === undefined ? {} : { version }),
          ...(message === undefined ? {} : { message }),
        })}
        {script(choices)}
        {uploadScript(files)}
        {this.pages.actions.has("Show") ? <p><a href={this.pages.at(request, key)}>Back to the {words.lower}</a></p> : this.pages.backLink(request)}
      </>,
    );
  }

  async create(request: Request): Promise<Response> {
    const { words, actions } = this.pages;
    const read = await this.read(request, undefined);
    if ("errors" in read) return this.newForm(request, read.values, read.errors, { choices: read.choices, uploads: read.uploads });
    let row: A;
    try {
      row = await (await this.pages.own.creating(request)).insert(this.stamped(read.draft, undefined));
    } catch (error) {
      const refused = this.refusal(error);
      if (refused === undefined) throw error;
      return this.newForm(request, read.values, refused, { uploads: uploaded(read.files) });
    }
    const key = (row as Record<string, unknown>)[this.pages.model.key];
    return this.pages.done(request, `${words.one} created.`, actions.has("Show") ? this.pages.at(request, key) : undefined);
  }

  /**
   * Writes the change. On a versioned store the form's `_version` goes along: a row saved by
   * someone else since the form was read is a `Conflict`, answered 409 with the form shown
   * again (the user's values, the row's new version, a message); a value a unique column
   * already holds is a `DuplicateValue`, answered 422 beside its field; a reference to a row
   * deleted meanwhile (`MissingReference`) is answered as a reference to no row.
   */
  async update(request: Request): Promise<Response> {
    const { words, model, actions } = this.pages;
    const key = this.pages.keyOf(request);
    const before = await this.pages.writable(request, "Update", key);
    const expected = this.expectedVersion(request);
    const read = await this.read(request, before);
    if ("errors" in read) return this.edit(request, read.values, read.errors, { version: expected, choices: read.choices, uploads: read.uploads });
    const stamped = this.stamped(read.draft, before);
    const draft = this.pages.own.kept?.(before, stamped) ?? stamped;
    const whole = this.pages.own.whole;
    const uploads = uploaded(read.files);
    try {
      const updated = expected === undefined ? await whole.update(key, draft) : await whole.update(key, draft, expected);
      if (updated === undefined) throw new NotFound(`There is no ${words.lower} ${String(key)}: it was deleted.`);
    } catch (error) {
      const refused = this.refusal(error);
      if (refused !== undefined) return this.edit(request, read.values, refused, { version: expected, uploads });
      if (!(error instanceof Conflict)) throw error;
      const now = await this.versionOf(key);
      if (now === undefined) throw new NotFound(`There is no ${words.lower} ${String(key)}: it was deleted while you edited it.`);
      return this.edit(request, read.values, FormErrors.none, {
        version: now,
        status: 409,
        uploads,
        message:
          `Someone else saved this ${words.lower} after you opened this form, so your changes were not saved. ` +
          `The form shows your changes; the ${words.lower} now holds theirs. Save again to replace them with yours.`,
      });
    }
    // The files the row no longer holds (replaced or removed) go, once the write is done.
    const replaced = Object.keys(read.files).flatMap((name) => filesOf(before, this.pages.fileFields.filter((field) => field.name === name)));
    if (replaced.length > 0) await this.pages.filesOrFail().release(replaced);
    return this.pages.done(request, `${words.one} updated.`, actions.has("Show") ? this.pages.at(request, key) : undefined);
  }

  /**
   * A submission read: each reference resolved to a row the viewer may read (picker.ts), then
   * the fields and the model's rules (`Form.parse`). The values come back as typed, a resolved
   * reference as its key; a field's problems are those of its reference, else the form's.
   */
  private async read(request: Request, before: A | undefined): Promise<Read<A>> {
    const resolved = await this.pages.picker.resolveForm(request, this.pages.form.fields, request.form);
    const parsed = this.pages.form.parse(resolved.form);
    const values = this.pages.form.typed(resolved.form);
    const files = await this.receiveFiles(request, before);
    const uploads = uploaded(files.values);
    if (parsed.ok && resolved.problems.length === 0 && files.problems.length === 0) {
      // An Update keeps the files the form did not change: a store's update replaces the whole row.
      const kept = before === undefined ? {} : Object.fromEntries(this.pages.fileFields.filter((f) => !(f.name in files.values)).map((f) => [f.name, (before as Record<string, unknown>)[f.name]]));
      const chosen = Object.fromEntries(Object.entries(files.values).map(([name, file]) => [name, file ?? undefined]));
      return { draft: { ...parsed.draft, ...kept, ...chosen } as Draft<A>, values, files: files.values };
    }
    const referenced = new Set(resolved.problems.map((problem) => problem.field));
    const others = parsed.ok ? [] : parsed.errors.problems.filter((problem) => !referenced.has(problem.field));
    const order = this.pages.form.fields.map((field) => field.name);
    const problems = [...resolved.problems, ...others, ...files.problems].sort((a, b) => order.indexOf(a.field) - order.indexOf(b.field));
    return { errors: new FormErrors(problems), values, choices: resolved.choices, uploads };
  }

  /**
   * The form's files (fw/files stores each upload, brings back each kept one), with a required
   * field left without one (a new row's, or one whose file was removed) said beside it.
   */
  private async receiveFiles(request: Request, before: A | undefined): Promise<ReceivedFiles> {
    const fields = this.pages.fileFields;
    if (fields.length === 0) return { values: {}, problems: [] };
    const received = await this.pages.filesOrFail().receive(request, fields);
    const missing: FieldProblem[] = fields.flatMap((field) => {
      if (field.optional || received.problems.some((p) => p.field === field.name)) return [];
      const value = field.name in received.values ? received.values[field.name] : before === undefined ? undefined : (before as Record<string, unknown>)[field.name];
      return value === undefined || value === null ? [{ field: field.name, kind: "required" as const, message: `${field.label} is required.` }] : [];
    });
    return { values: received.values, problems: [...received.problems, ...missing] };
  }

  /**
   * What each file field of a form shows: an upload kept from a failed submission (with a fresh
   * reference: each is used once), else the row's current file on Edit.
   */
  private async filesShown(request: Request, row: A | undefined, uploads: Readonly<Record<string, StoredFile>> = {}): Promise<Record<string, FileShown>> {
    const shown: Record<string, FileShown> = {};
    for (const field of this.pages.fileFields) {
      const upload = uploads[field.name];
      if (upload !== undefined) {
        shown[field.name] = { kept: { file: upload, ref: await this.pages.filesOrFail().keep(request, field, upload) } };
        continue;
      }
      const current = row === undefined ? undefined : (row as Record<string, unknown>)[field.name];
      if (isStoredFile(current)) {
        const key = this.pages.keyOf(request);
        shown[field.name] = { current: { file: current, href: this.pages.fileHref(request, key, field, current), ...(field.file?.image === true ? { thumb: this.pages.fileHref(request, key, field, current, "thumb") } : {}) } };
      }
    }
    return shown;
  }

  /** A store's refusal of a write as the form's problems: a unique value taken, a reference to a row gone meanwhile. */
  private refusal(error: unknown): FormErrors | undefined {
    if (error instanceof DuplicateValue) return this.taken(error);
    if (!(error instanceof MissingReference)) return undefined;
    const field = this.pages.form.fields.find((f) => f.name === error.field);
    if (field === undefined) return new FormErrors([{ field: error.field, kind: "invalid", message: `There is no such ${error.field.toLowerCase()}.` }]);
    return new FormErrors([noSuch(field, this.pages.picker.target(field))]);
  }

  /** The choices of the form's references, with those a submission brought in their place. */
  private async choices(request: Request, values: Values, brought: Readonly<Record<string, Choices>> = {}): Promise<Record<string, Choices>> {
    const fields = this.pages.references.filter((field) => brought[field.name] === undefined);
    return { ...(await this.pages.picker.all(request, fields, values)), ...brought };
  }

  /**
   * A form's draft with what the server sets (docs/guides/models-and-forms.md, "Server-set fields"): `createdAt` now on
   * Create, kept from the row on Update; `updatedAt` now on both; a `readonly` field kept from
   * the row (a store's update replaces the row, and the form never carries it).
   */
  private stamped(draft: Draft<A>, before: A | undefined): Draft<A> {
    const now = new Date();
    const out: Record<string, unknown> = { ...draft };
    for (const field of this.pages.form.shown) {
      const kept = before === undefined ? undefined : (before as Record<string, unknown>)[field.name];
      if (field.serverSet === "updatedAt") out[field.name] = now;
      else if (field.serverSet === "createdAt") out[field.name] = before === undefined ? now : kept;
      else if (field.serverSet === "readOnly" && kept !== undefined) out[field.name] = kept;
    }
    return out as Draft<A>;
  }

  /** The row's current version, on a store that versions its rows; else undefined. */
  private async versionOf(key: Id<A>): Promise<number | undefined> {
    const store = this.pages.own.whole;
    return store.read === undefined ? undefined : (await store.read(key))?.version;
  }

  /**
   * The version an Update's form was read at (`_version`), on a store that versions its rows;
   * undefined without one (a form made by hand: the last write wins). Not a version: 400.
   */
  private expectedVersion(request: Request): number | undefined {
    if (this.pages.own.whole.read === undefined) return undefined;
    const raw = request.form.get(VERSION_FIELD);
    if (raw === undefined) return undefined;
    const version = /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(version)) throw new BadRequest(`The form's ${VERSION_FIELD} must be the version of the ${this.pages.words.lower} it edits (a whole number from 1), not ${JSON.stringify(raw.slice(0, 40))}.`);
    return version;
  }

  /** Problems of no field the form shows (a unique column outside the form), said above the form. */
  private aboutTheForm(errors: FormErrors): string | undefined {
    const shown = new Set(this.pages.form.fields.map((field) => field.name));
    const others = errors.problems.filter((problem) => !shown.has(problem.field));
    return others.length === 0 ? undefined : others.map((problem) => problem.message).join(" ");
  }

  /**
   * A `DuplicateValue` as the problem beside its field (or about the form when no field shows
   * it); for a unique of several fields, beside the first the form shows, naming them all.
   */
  private taken(error: DuplicateValue): FormErrors {
    const { words } = this.pages;
    const labelOf = (name: string): string => this.pages.form.fields.find((f) => f.name === name)?.label ?? name;
    if (error.fields.length > 1) {
      const at = error.fields.find((name) => this.pages.form.fields.some((f) => f.name === name)) ?? error.field;
      const names = listed(error.fields.map((name) => labelOf(name).toLowerCase()));
      return new FormErrors([{ field: at, kind: "invalid", message: `Another ${words.lower} already has this ${names}: they must differ from every other ${words.lower}'s together. Change one of them.` }]);
    }
    const label = labelOf(error.field);
    const problem: FieldProblem = { field: error.field, kind: "invalid", message: `${label} is already taken: another ${words.lower} has this ${label.toLowerCase()}.` };
    return new FormErrors([problem]);
  }
}

/** The new files among a form's files (those it stored), to keep for a re-shown form. */
function uploaded(files: Readonly<Record<string, StoredFile | null>>): Record<string, StoredFile> {
  return Object.fromEntries(Object.entries(files).flatMap(([name, file]) => (file === null ? [] : [[name, file]])));
}

/** The upload progress script, for a form with a file field (the form works without it). */
function uploadScript(files: Readonly<Record<string, FileShown>> | undefined): Html | null {
  return files === undefined ? null : <script src={uploadScriptUrl()} defer></script>;
}

/** The picker's script, for a form with a search input (the form works without it). */
function script(choices: Readonly<Record<string, Choices>>): Html | null {
  return Object.values(choices).some((c) => c.mode === "search") ? <script src={pickerScriptUrl()} defer></script> : null;
}

/** Pre-selected values the viewer may not read left out, so a search input does not show a hidden row's key. */
function withoutHidden(values: Values, choices: Readonly<Record<string, Choices>>): Values {
  const out: Record<string, string> = { ...values };
  for (const [name, choice] of Object.entries(choices)) if (choice.mode === "search" && choice.chosen === undefined) delete out[name];
  return out;
}
