import type { Html } from "../html/node.js";
import { fillPath, type PathValue } from "../routing/fill-path.js";
import type { FieldSpec, ModelSpec } from "./model.js";
import { modelPattern } from "./model-paths.js";
import type { RelatedModel, Relations } from "./relations.js";
import type { StillReferenced } from "./store-errors.js";
import { counted, listed, wordsOf } from "./words.js";

/** What deleting a row does to the rows of one model pointing at it through one field. */
export interface DeleteEffect {
  readonly entry: RelatedModel;
  readonly field: FieldSpec;
  /** How many rows point at it (every row: the delete reaches those the viewer cannot read too). */
  readonly count: number;
}

/**
 * The rows pointing at row `key` of `model`, per referencing model and field, with the field's
 * rule: what a delete also removes (cascade), clears (set null) or what blocks it (restrict).
 * One count per referencing field; only those with rows are answered.
 */
export async function deleteEffects(relations: Relations, model: Pick<ModelSpec<unknown>, "name">, key: unknown): Promise<DeleteEffect[]> {
  const effects = await Promise.all(
    relations.referencing(model.name).map(async ({ model: entry, field }) => {
      // A list of references (many-to-many: a post's tags) holds the key among others.
      const { total } = await entry.store.list({ offset: 0, limit: 1, where: { [field.name]: isList(field) ? { has: key } : key } });
      return { entry, field, count: total };
    }),
  );
  return effects.filter((effect) => effect.count > 0);
}

/** A list of references (`tags: Id<Tag>[]`): its links are a join table's rows, which go with either end. */
function isList(field: FieldSpec): boolean {
  return field.input === "references";
}

/** The effects that refuse the delete: restricting references (a list's links never do: they go with the row). */
export function blockers(effects: readonly DeleteEffect[]): DeleteEffect[] {
  return effects.filter((effect) => !isList(effect.field) && (effect.field.reference?.onDelete ?? "restrict") === "restrict");
}

/** "3 comments", as a link to those rows on their Index (`/reviews?post=7`) when it is mounted. */
function rowsOf(effect: DeleteEffect, key: unknown, href: (path: string) => string): Html | string {
  const text = counted(effect.count, wordsOf(effect.entry.model));
  if (!effect.entry.actions.has("Index")) return text;
  return <a href={href(fillPath(modelPattern(effect.entry.model, "Index"), {}, { [effect.field.name]: key as PathValue }))}>{text}</a>;
}

/** Words and links joined as a list: "a, b and c". */
function joined(parts: readonly (Html | string)[]): (Html | string)[] {
  return parts.flatMap((part, i) => (i === 0 ? [part] : [i === parts.length - 1 ? " and " : ", ", part]));
}

/**
 * The sentence saying why a row cannot be deleted: "This post cannot be deleted: 3 reviews
 * still point at it.", each count linking to those rows; from the store's refusal when the
 * rows blocking it are further away (a row the delete would cascade to is pointed at).
 */
export function blockedSentence(href: (path: string) => string, words: string, effects: readonly DeleteEffect[], key: unknown, refused?: StillReferenced, relations?: Relations): Html {
  const blocking = blockers(effects);
  if (blocking.length > 0) {
    const total = blocking.reduce((sum, effect) => sum + effect.count, 0);
    return (
      <p class="fw-blocked">
        This {words} cannot be deleted: {joined(blocking.map((effect) => rowsOf(effect, key, href)))} still {total === 1 ? "points" : "point"} at it. Delete them or change what they point at first.
      </p>
    );
  }
  const tables = [...new Set((refused?.by ?? []).map((by) => modelWords(relations, by.table)))];
  return (
    <p class="fw-blocked">
      This {words} cannot be deleted: other rows{tables.length === 0 ? "" : ` (${listed(tables)})`} still point at it, or at rows deleting it would delete. Delete them or change what they point at first.
    </p>
  );
}

/** A table (or in-memory model) name as its model's words: "comments"; the name itself when no model has it. */
function modelWords(relations: Relations | undefined, table: string): string {
  const entry = relations?.all().find((e) => (e.model.table ?? e.model.name) === table);
  return entry === undefined ? table : wordsOf(entry.model).many.toLowerCase();
}

/** What else a delete does, sentence by sentence: "Its 3 comments will be deleted too.", "2 comments will stay, without their see also." */
export function sideEffects(effects: readonly DeleteEffect[]): Html[] {
  return effects.flatMap((effect) => {
    const rule = effect.field.reference?.onDelete ?? "restrict";
    const rows = counted(effect.count, wordsOf(effect.entry.model));
    if (isList(effect.field)) return [<p class="fw-set-null">{rows} will stay, without it in {effect.count === 1 ? "its" : "their"} {effect.field.label.toLowerCase()}.</p>];
    if (rule === "cascade") return [<p class="fw-cascade">Its {rows} will be deleted too.</p>];
    if (rule === "set null") return [<p class="fw-set-null">{rows} will stay, without {effect.count === 1 ? "its" : "their"} {effect.field.label.toLowerCase()}.</p>];
    return [];
  });
}
