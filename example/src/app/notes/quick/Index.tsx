import type { FormErrors, Store, Values } from "fw";
import { Guarded } from "fw/auth";
import { live, type FormInput } from "fw/live";
import { path } from "../../../.fw/paths.js";
import type { Note } from "../../../models/Note.js";

/** Open to everyone, as every notes page. */
export const guarded = Guarded.public;

/** The form as the user left it, its problems, and the last note saved from this page. */
interface Quick {
  readonly values: Values;
  readonly errors: FormErrors | undefined;
  readonly saved: { readonly id: Note["id"]; readonly text: string } | undefined;
}

const blank: Quick = { values: {}, errors: undefined, saved: undefined };

/** A draft that passed the form's checks, as the form's text again (what the fields go on showing). */
function asValues(note: Partial<Note>): Values {
  return { text: note.text ?? "", pinned: note.pinned === true ? "true" : "false" };
}

/**
 * `GET /notes/quick`: a live form for a note, checked as you type. The form is the Note model's
 * own (`view.form`: the same fields, typia rules and messages as the derived New at /notes/new);
 * `check` runs (debounced) on every change and shows the problems beside their fields, `save`
 * stores the note and clears the form. Without JavaScript the form posts to /notes/quick, which
 * runs `save` the same way (422 with the problems when the note is refused).
 */
export const index = live({
  mount: (_request, _capabilities: { notes: Store<Note> }): Quick => blank,
  render: (state, view) => (
    <>
      <title>Quick note</title>
      <h1>Quick note</h1>
      <p>Checked as you type, saved without leaving the page.</p>
      {state.saved === undefined ? null : (
        <p class="saved" role="status">
          Saved: <a href={path("/notes/:id", { id: state.saved.id })}>{state.saved.text}</a>
        </p>
      )}
      {view.form("save", { values: state.values, ...(state.errors === undefined ? {} : { errors: state.errors }), change: "check", submit: "Save note" })}
      <p>
        <a href="/notes">All notes</a>
      </p>
    </>
  ),
  events: {
    check: (state: Quick, input: FormInput<Note>): Quick =>
      input.ok ? { ...state, values: asValues(input.draft), errors: undefined } : { ...state, values: input.values, errors: input.errors },
    save: async (state: Quick, input: FormInput<Note>, { capabilities }): Promise<Quick> => {
      if (!input.ok) return { ...state, values: input.values, errors: input.errors };
      const note = await capabilities.notes.insert(input.draft);
      return { ...blank, saved: { id: note.id, text: note.text } };
    },
  },
});
