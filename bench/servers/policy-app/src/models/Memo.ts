import { Actions, derives, Form, Resource, type Id, type LongText } from "fw";
import type { tags } from "typia";
import { auth, type User } from "../users.js";

/** The baseline: rows scoped by `owned` alone (a user reads and writes their own). */
export interface Memo {
  id: Id<Memo>;
  owner: Id<User>;
  title: string & tags.MaxLength<120>;
  body: LongText;
}

export const Memo = derives<Memo>(Form, Resource, { table: "memos", owned: auth.owned<Memo, User>(Actions.all) });
