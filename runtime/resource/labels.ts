import type { FieldSpec, ModelSpec } from "./model.js";
import { HEADING_LENGTH, oneLine } from "./one-line.js";
import { wordsOf } from "./words.js";

type Labelled = Pick<ModelSpec<unknown>, "name" | "path" | "key" | "fields">;

/**
 * The text fields a label is read from, in declaration order (a form's text inputs; not server-set
 * ones). Kept per fields list: a page labels every row it names (an Index of 50 posts, 50 times).
 */
function textFields(model: Labelled): readonly FieldSpec[] {
  let fields = textFieldsOf.get(model.fields);
  if (fields === undefined) textFieldsOf.set(model.fields, (fields = model.fields.filter((field) => field.input === "text" && field.serverSet === undefined)));
  return fields;
}

const textFieldsOf = new WeakMap<readonly FieldSpec[], readonly FieldSpec[]>();

/**
 * The field a model's rows are sorted and searched by in a reference's picker: its first text
 * field (the one a label is read from first), or undefined when it has none.
 */
export function labelField(model: Labelled): FieldSpec | undefined {
  return textFields(model)[0];
}

/**
 * What a row is called wherever it is named (its Show heading, a reference's link, a picker's
 * option): its first non-empty text field, on one line, else the model and the key ("Post 3").
 */
export function labelOf(model: Labelled, row: unknown, key: unknown = (row as Record<string, unknown>)[model.key]): string {
  for (const field of textFields(model)) {
    const value = (row as Record<string, unknown>)[field.name];
    if (typeof value === "string" && value.trim() !== "") return oneLine(value, HEADING_LENGTH);
  }
  return unnamed(model, key);
}

/** A row named by its model and key alone ("Post 3"): what a reference to a row the viewer may not read shows. */
export function unnamed(model: Pick<ModelSpec<unknown>, "name" | "path">, key: unknown): string {
  return `${wordsOf(model).one} ${String(key)}`;
}
