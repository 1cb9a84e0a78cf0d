import { Fields } from "../http/fields.js";
import { readWholeNumber, UINT32_MAX } from "../http/number-text.js";
import type { Request } from "../http/request.js";
import { fold } from "./case-fold.js";
import type { FieldProblem } from "./form-errors.js";
import { MAX_LIST_KEYS } from "./form.js";
import { labelField, labelOf } from "./labels.js";
import type { FieldSpec } from "./model.js";
import { optionHtml, type FilterChoices } from "./filter-options.js";
import type { ListPage, Order } from "./query.js";
import type { Choice, Choices } from "./reference-input.js";
import { viewerRows } from "./readable.js";
import type { RelatedModel, Relations } from "./relations.js";
import type { Store } from "./store.js";
import { withArticle, wordsOf } from "./words.js";

/** A reference's `<select>` lists at most this many rows; with more readable rows it is a search input. */
export const PICKER_LIMIT = 100;

/** The path of a model's pick endpoint: `/posts` → `/fw/pick/posts`. */
export function pickPath(path: string): string {
  return `/fw/pick${path}`;
}

/** A key as a form or a query spells it: a whole number from 1 that an `Id` holds, in digits alone (`7`, not `07` or ` 7`); else undefined. */
export function keyText(text: string): number | undefined {
  return readWholeNumber(text, 1, UINT32_MAX);
}

/** What the text typed for a reference came to: the key of one readable row, or a problem (with the rows to choose from). */
export type Resolved = { readonly key: number } | { readonly problem: FieldProblem; readonly choices?: Choices };

/** A submitted form with each reference resolved to a key, the problems of those that could not be, and their choices. */
export interface ResolvedForm {
  readonly form: Fields;
  readonly problems: readonly FieldProblem[];
  readonly choices: Readonly<Record<string, Choices>>;
}

/**
 * The rows a reference field may point at, for one viewer: those of the target model they may
 * read (its Show's read rules), labelled, sorted by label. Builds the picker a form shows and
 * resolves what was typed or chosen in it, with the same words whether a row does not exist
 * or is hidden from the viewer.
 */
export class Picker {
  constructor(private readonly relations: Relations) {}

  /** The target of a reference field, when the app registers it (else the field stays a key input). */
  target(field: FieldSpec): RelatedModel | undefined {
    return field.reference === undefined ? undefined : this.relations.model(field.reference.model);
  }

  /** The choices of one reference field whose form value is `value`: one query, two in search mode with a chosen row. */
  async choices(request: Request, field: FieldSpec, value: string | undefined): Promise<Choices | undefined> {
    const target = this.target(field);
    if (target === undefined) return undefined;
    const reading = this.readable(request, target);
    // A store known at once is not awaited: no turn, no promise held while the statement waits.
    const readable = reading instanceof Promise ? await reading : reading;
    const { rows, total } = await readable.list(selectPage(target));
    if (total <= PICKER_LIMIT) return { mode: "select", options: rows.map((row) => choiceOf(target, row)) };
    return this.searchChoices(readable, target, value === undefined ? undefined : keyText(value.trim()));
  }

  /**
   * A reference filter's choices on the derived Index (index-controls.tsx): `choices`, but a
   * select's options come written (`value`'s selected), one string rather than an object per
   * row, since the Index holds them while its other statements run.
   */
  async filterChoices(request: Request, field: FieldSpec, value: number | undefined): Promise<FilterChoices | undefined> {
    const target = this.target(field);
    if (target === undefined) return undefined;
    const reading = this.readable(request, target);
    const readable = reading instanceof Promise ? await reading : reading;
    const { rows, total } = await readable.list(selectPage(target));
    if (total > PICKER_LIMIT) return this.searchChoices(readable, target, value);
    const key = target.model.key;
    // Joined, not added up: one flat string, not a rope of every piece.
    const html = rows.map((row) => optionHtml((row as Record<string, unknown>)[key] as number, labelOf(target.model, row), (row as Record<string, unknown>)[key] === value)).join("");
    return { mode: "written", html };
  }

  /** The search input's choices (more rows than a select lists), with the row `key` names when the viewer may read it. */
  private async searchChoices(readable: Store<unknown>, target: RelatedModel, key: number | undefined): Promise<Choices> {
    const row = key === undefined ? undefined : await readable.get(key);
    return { ...this.search(target), ...(row === undefined ? {} : { chosen: choiceOf(target, row) }) };
  }

  /**
   * The choices of a list field (many-to-many) whose form value is `value` (keys joined by
   * commas): the rows to pick from when they are few (a `<select multiple>`); past
   * `PICKER_LIMIT`, the rows already chosen that the viewer may read, labelled (ticked boxes
   * beside a text input taking more numbers). One query, two with chosen rows past the limit.
   */
  async listChoices(request: Request, field: FieldSpec, value: string | undefined): Promise<Choices | undefined> {
    const target = this.target(field);
    if (target === undefined) return undefined;
    const reading = this.readable(request, target);
    const readable = reading instanceof Promise ? await reading : reading;
    const { rows, total } = await readable.list({ offset: 0, limit: PICKER_LIMIT, countUpTo: PICKER_LIMIT + 1, ...byLabel(target) });
    if (total <= PICKER_LIMIT) return { mode: "select", options: rows.map((row) => choiceOf(target, row)) };
    const keys = keysOf(value ?? "");
    const chosen = keys.length === 0 ? [] : (await readable.list({ offset: 0, limit: keys.length, where: { [target.model.key]: keys }, ...byLabel(target) })).rows;
    const words = wordsOf(target.model);
    const label = labelField(target.model);
    const one = withArticle(words.lower);
    const hint = `To add ${one}, type its ${label === undefined ? "number" : `${label.label.toLowerCase()} (or its start), or its number`}; untick one to take it out.`;
    return { mode: "search", options: chosen.map((row) => choiceOf(target, row)), pickPath: pickPath(target.model.path), hint };
  }

  /**
   * A list field's values as sent (many-to-many): numbers (one per value, or separated by
   * commas) are keys; any other value is one more row typed by its label's start (or picked with
   * `/fw/picker.js`'s suggestions), resolved as a single reference's search input is (`resolve`).
   * Every key must name a row the viewer may read, else "There is no such tag." beside the
   * field (the same words for a key no row has and one the viewer may not read), before any
   * write: one query for the keys, two more per label typed. Answers each typed text's key.
   */
  async resolveList(request: Request, field: FieldSpec, form: Fields): Promise<{ readonly typed: ReadonlyMap<string, string>; readonly problem?: FieldProblem }> {
    const target = this.target(field);
    const values = form.getAll(field.name).filter((value) => value.trim() !== "");
    const typed = new Map<string, string>();
    if (target === undefined) return { typed };
    for (const text of values.filter((value) => !KEY_LIST.test(value))) {
      const resolved = await this.resolve(request, field, text);
      if (!("key" in resolved)) return { typed, problem: resolved.problem };
      typed.set(text, String(resolved.key));
    }
    const keys = keysOf(values.map((value) => typed.get(value) ?? value).join(","));
    // Past MAX_LIST_KEYS the form refuses the list itself (Form.parse): nothing to look up.
    if (keys.length === 0 || keys.length > MAX_LIST_KEYS) return { typed };
    const readable = await this.readable(request, target);
    const { rows } = await readable.list({ offset: 0, limit: keys.length, where: { [target.model.key]: keys } });
    return rows.length === keys.length ? { typed } : { typed, problem: noSuch(field, target) };
  }

  /** The choices of every reference field of a form, by field name. */
  async all(request: Request, fields: readonly FieldSpec[], values: Readonly<Record<string, string>>): Promise<Record<string, Choices>> {
    const out: Record<string, Choices> = {};
    await Promise.all(
      fields.map(async (field) => {
        if (field.input !== "reference" && field.input !== "references") return;
        const choices = field.input === "references" ? await this.listChoices(request, field, values[field.name]) : await this.choices(request, field, values[field.name]);
        if (choices !== undefined) out[field.name] = choices;
      }),
    );
    return out;
  }

  /**
   * What was sent for a reference (non-empty): a key of a row the viewer may read is taken; else
   * the text is the start of a label (any case): one match is taken (or the one whose label is
   * the whole text), several give the matches to choose from, none gives "There is no such
   * post." — the same words for a key that no row has and one the viewer may not read.
   */
  async resolve(request: Request, field: FieldSpec, text: string): Promise<Resolved> {
    const target = this.target(field);
    // What a search input holds is typed by people: its spaces are not part of a key or a label.
    const key = keyText(text.trim());
    if (target === undefined) return key === undefined ? { problem: noSuch(field, target) } : { key };
    const readable = await this.readable(request, target);
    if (key !== undefined && (await readable.get(key)) !== undefined) return { key };
    const label = labelField(target.model);
    const typed = text.trim();
    if (label === undefined || typed === "") return { problem: noSuch(field, target) };
    const { rows, total } = await readable.list({ offset: 0, limit: PICKER_LIMIT, countUpTo: PICKER_LIMIT + 1, search: { field: label.name, prefix: typed }, ...byLabel(target) });
    const whole = rows.filter((row) => fold(String((row as Record<string, unknown>)[label.name] ?? "").trim()) === fold(typed));
    const only = total === 1 ? rows[0] : whole.length === 1 ? whole[0] : undefined;
    if (only !== undefined) return { key: choiceOf(target, only).key };
    if (total === 0) return { problem: noSuch(field, target) };
    const words = wordsOf(target.model);
    const quoted = JSON.stringify(typed.length > 40 ? `${typed.slice(0, 40)}…` : typed);
    if (total > PICKER_LIMIT) {
      return {
        problem: { field: field.name, kind: "invalid", message: `More than ${PICKER_LIMIT} ${words.many.toLowerCase()} match ${quoted}: type more of the ${label.label.toLowerCase()}, or the number.` },
        choices: this.search(target),
      };
    }
    return {
      problem: { field: field.name, kind: "invalid", message: `Several ${words.many.toLowerCase()} match ${quoted}: choose one.` },
      choices: { mode: "matches", options: rows.map((row) => choiceOf(target, row)) },
    };
  }

  /**
   * Every reference of a submitted form resolved (`resolve`): a form whose references are keys of
   * rows the viewer may read, for `Form.parse`; one query per reference field sent (two to
   * search a label). An empty reference is left to the form (optional, or "is required").
   */
  async resolveForm(request: Request, fields: readonly FieldSpec[], form: Fields): Promise<ResolvedForm> {
    const keys = new Map<string, string>();
    /** Per list field, each label typed and the key it resolved to. */
    const lists = new Map<string, ReadonlyMap<string, string>>();
    const problems: FieldProblem[] = [];
    const choices: Record<string, Choices> = {};
    await Promise.all(
      fields.map(async (field) => {
        if (field.input === "references") {
          const list = await this.resolveList(request, field, form);
          if (list.problem !== undefined) problems.push(list.problem);
          if (list.typed.size > 0) lists.set(field.name, list.typed);
          return;
        }
        const raw = form.get(field.name);
        if (field.input !== "reference" || raw === undefined || raw.trim() === "") return;
        const resolved = await this.resolve(request, field, raw);
        if ("key" in resolved) keys.set(field.name, String(resolved.key));
        else {
          problems.push(resolved.problem);
          if (resolved.choices !== undefined) choices[field.name] = resolved.choices;
        }
      }),
    );
    const resolved = keys.size === 0 && lists.size === 0 ? form : Fields.of([...form.entries()].map(([name, value]): [string, string] => [name, keys.get(name) ?? lists.get(name)?.get(value) ?? value]));
    return { form: resolved, problems: fields.flatMap((field) => problems.filter((p) => p.field === field.name)), choices };
  }

  /** The readable rows of a target, as its Show reads them. */
  readable(request: Request, target: RelatedModel): Store<unknown> | Promise<Store<unknown>> {
    return viewerRows(this.relations, target, request, "Show");
  }

  private search(target: RelatedModel): Choices {
    const words = wordsOf(target.model);
    const label = labelField(target.model);
    const one = withArticle(words.lower);
    const hint = label === undefined ? `Type ${one}'s number.` : `Type ${one}'s ${label.label.toLowerCase()} (or its start), or its number.`;
    return { mode: "search", options: [], pickPath: pickPath(target.model.path), hint };
  }
}

/** "There is no such post.": a key no row has, or one the viewer may not read, told the same. */
export function noSuch(field: FieldSpec, target: RelatedModel | undefined): FieldProblem {
  const lower = target === undefined ? field.label.toLowerCase() : wordsOf(target.model).lower;
  return { field: field.name, kind: "invalid", message: `There is no such ${lower}.` };
}

/** A list field's value that holds keys alone (`3`, `3, 7,12`): anything else is a label typed. */
const KEY_LIST = /^[\s\d,]*$/;

/** The distinct keys of a list's text (`3, 7,12`); what is not a key is left to the form to refuse. */
function keysOf(text: string): number[] {
  const keys = text.split(",").map((part) => keyText(part.trim()));
  return [...new Set(keys.filter((key): key is number => key !== undefined))];
}

/** A row as a picker's option. */
export function choiceOf(target: RelatedModel, row: unknown): Choice {
  return { key: (row as Record<string, unknown>)[target.model.key] as number, label: labelOf(target.model, row) };
}

/** The first `PICKER_LIMIT` rows of a target by label, counted one past the limit: all that decides is whether there are more (a search) or not (a select). */
function selectPage(target: RelatedModel): ListPage<unknown> {
  return { offset: 0, limit: PICKER_LIMIT, countUpTo: PICKER_LIMIT + 1, ...byLabel(target) };
}

/** A list sorted by the target's label field (key order when it has none). */
function byLabel(target: RelatedModel): { order?: Order } {
  const label = labelField(target.model);
  return label === undefined ? {} : { order: { field: label.name, descending: false } };
}
