/**
 * The derived Index's reference filters as the picker answers them (`Picker.filterChoices`) and
 * the filter form writes them (index-controls.tsx): a module of its own, since the form's module
 * reaches the picker through index-query.ts, and the picker cannot import it back.
 */
import { escapeHtml } from "../html/render.js";
import type { Choices } from "./reference-input.js";

/**
 * A reference filter's select as the picker answers it for the Index (`Picker.filterChoices`):
 * its options already written, one flat string, rather than a `Choice` object per row held until
 * the page renders (the page's other statements run meanwhile: bench/FINDINGS.md 37).
 */
export interface WrittenOptions {
  readonly mode: "written";
  /** The `<option>`s, as `optionHtml` writes each. */
  readonly html: string;
}

/** A reference filter's choices: its select's options written, or the picker's search past its limit. */
export type FilterChoices = WrittenOptions | Choices;

/** One option of a reference filter's select: the bytes its JSX (`referenceFilter`) would write. */
export function optionHtml(key: number, label: string, selected: boolean): string {
  return `<option value="${key}"${selected ? " selected" : ""}>${escapeHtml(label)}</option>`;
}
