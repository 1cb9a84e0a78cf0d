import { Actions, derives, Destroy, Form, Resource, type Id } from "fw";
import { Guarded } from "fw/auth";

/** A public note, in the `notes` table. Notes are never deleted: /notes mounts every page but Destroy. */
export interface Note {
  id: Id<Note>;
  text: string;
  pinned: boolean;
}

export const Note = derives<Note>(Form, Resource, { actions: Actions.except(Destroy), guarded: Guarded.public, table: "notes" });
