import type { Html } from "../html/node.js";
import type { FieldSpec } from "./model.js";

/** One row a reference's picker offers: its key (what the form sends) and its label. */
export interface Choice {
  readonly key: number;
  readonly label: string;
}

/**
 * What a reference field's picker shows, loaded by the pages before the (synchronous) form
 * renders: the rows the viewer may read, labelled.
 * - `select`: at most `PICKER_LIMIT` rows, all of them options of a `<select>`;
 * - `search`: more than that: a search input taking a key or the start of a label, resolved
 *   when the form is sent (and, with JavaScript, `/fw/picker.js` suggesting rows as one types);
 * - `matches`: the rows the text typed in a search input matched, to choose one of.
 */
export interface Choices {
  readonly mode: "select" | "search" | "matches";
  readonly options: readonly Choice[];
  /** The row the form's value names, when the viewer may read it (a search input shows its label beside). */
  readonly chosen?: Choice;
  /** `search`: the endpoint suggesting rows (`/fw/pick/posts`). */
  readonly pickPath?: string;
  /** `search`: what to type, for people ("Type a post's title, or the start of it, or its number."). */
  readonly hint?: string;
}

type Common = Readonly<Record<string, string | undefined>>;

/**
 * A reference's input: a `<select>` of labelled rows (with an empty choice when optional, or
 * while nothing valid is chosen), or a search input with its hint. Without choices (a form
 * rendered outside the derived pages), the key itself, a whole number from 1.
 */
export function referenceInput(field: FieldSpec, value: string | undefined, common: Common, choices: Choices | undefined): Html {
  const required = !field.optional;
  if (choices === undefined) return <input {...common} type="number" step="1" min="1" value={value ?? ""} required={required} />;
  if (choices.mode === "search") {
    const hintId = `${common["id"] ?? field.name}-hint`;
    const described = [common["aria-describedby"], hintId].filter((id) => id !== undefined).join(" ");
    return (
      <>
        <input {...common} aria-describedby={described} type="search" value={value ?? ""} required={required} autocomplete="off" data-fw-pick={choices.pickPath} data-fw-label={choices.chosen?.label} />
        <p class="fw-field-hint" id={hintId}>
          {choices.hint}
          {choices.chosen === undefined ? null : <> Chosen: <span class="fw-chosen">{choices.chosen.label}</span>.</>}
        </p>
      </>
    );
  }
  const listed = choices.options.some((choice) => String(choice.key) === value);
  return (
    <select {...common} required={required}>
      {field.optional || !listed ? <option value="" selected={!listed}>{field.optional ? "(none)" : "Choose…"}</option> : null}
      {choices.options.map((choice) => <option value={String(choice.key)} selected={String(choice.key) === value}>{choice.label}</option>)}
    </select>
  );
}

/**
 * A list of references' input (`tags: Id<Tag>[]`, many-to-many), its value the chosen keys
 * joined by commas: a `<select multiple>` of labelled rows when they are few (`select`); past
 * `PICKER_LIMIT` rows (`search`), the chosen rows as ticked boxes (untick one to take it out) and
 * a search input taking one more by its label's start or its number (or several numbers
 * separated by commas), with `/fw/picker.js` suggesting rows as one types. Without choices, a
 * text input of numbers.
 */
export function referencesInput(field: FieldSpec, value: string | undefined, common: Common, choices: Choices | undefined): Html {
  const chosen = (value ?? "").split(",").map((part) => part.trim()).filter((part) => part !== "");
  if (choices !== undefined && choices.mode !== "search") {
    // An empty <select multiple> reads as a broken box: a small disabled one with a sentence beside it says there
    // is nothing yet (and sends nothing: the empty list); it keeps the field's name and its error, should a forged
    // key come back refused (the sentence is not its description: a refusal reads the error alone).
    if (choices.options.length === 0) {
      return (
        <>
          <select {...common} multiple size="1" disabled></select>
          <p class="fw-field-hint">No {field.label.toLowerCase()} to choose from yet.</p>
        </>
      );
    }
    const selected = new Set(chosen);
    return (
      <select {...common} multiple size={String(Math.min(8, Math.max(3, choices.options.length)))}>
        {choices.options.map((choice) => <option value={String(choice.key)} selected={selected.has(String(choice.key))}>{choice.label}</option>)}
      </select>
    );
  }
  const hintId = `${common["id"] ?? field.name}-hint`;
  const described = [common["aria-describedby"], hintId].filter((id) => id !== undefined).join(" ");
  const ticked = choices?.options.filter((choice) => chosen.includes(String(choice.key))) ?? [];
  const labelled = new Set(ticked.map((choice) => String(choice.key)));
  // What the boxes do not carry (a key with no label known, a label typed) stays in the input.
  const rest = chosen.filter((part) => !labelled.has(part)).join(", ");
  return (
    <>
      {ticked.map((choice) => (
        <label class="fw-chosen-row">
          <input type="checkbox" name={field.name} value={String(choice.key)} checked /> {choice.label}
        </label>
      ))}
      <input {...common} aria-describedby={described} type={choices === undefined ? "text" : "search"} value={rest} autocomplete="off" data-fw-pick={choices?.pickPath} />
      <p class="fw-field-hint" id={hintId}>
        {choices?.hint ?? "Numbers of rows, separated by commas (3, 7, 12)."}
      </p>
    </>
  );
}
