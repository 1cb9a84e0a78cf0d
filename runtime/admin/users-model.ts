import type { UserFields, Users } from "../auth/users.js";
import { readWholeNumber } from "../http/number-text.js";
import type { ModelSpec } from "../resource/model.js";
import type { ListPage, Page, SearchResults } from "../resource/query.js";
import type { Store } from "../resource/store.js";
import type { FromPath } from "../routing/from-path.js";
import { USER_MODEL } from "./admin-spec.js";

/** A user's key in a path: a whole number from 1. */
export const USER_KEY: FromPath<number> = {
  type: "Id<User>",
  read: (segment) => {
    const value = readWholeNumber(segment, 1, Number.MAX_SAFE_INTEGER);
    return value === undefined ? undefined : { value };
  },
};

/**
 * The app's users as the back office's other pages name them (a row's owner shows as its user's
 * email, a link to the user's page; a user's page lists the rows they own): a model named
 * `User` at `/users` under the back office, its label the email. Never validated nor written
 * through: the users' own pages change accounts (users-section.tsx).
 */
export const USERS_SPEC: ModelSpec<UserFields> = {
  name: USER_MODEL,
  fqn: "fw.admin.User",
  path: "/users",
  key: "id",
  fields: [{ name: "email", label: "Email", input: "text", optional: false, describe: "an email" }],
  validate: () => ({ success: false, errors: [{ path: "$input", expected: "nothing: users are changed on their own pages", value: undefined }] }),
  decodeKey: USER_KEY,
};

/**
 * The users store read as a model's store, for labels and lists: `list` with `where: { id: [keys] }`
 * (one read for a page's owners, `Users.list`'s `ids`) or in key order; `get` by key. Writes are
 * refused: they are not the back office's way of changing an account.
 */
export class UsersRows implements Store<UserFields> {
  constructor(private readonly users: Users) {}

  async list(page: ListPage<UserFields>): Promise<Page<UserFields>> {
    const list = this.users.list;
    if (list === undefined) return { rows: [], total: 0 };
    const wanted = page.where?.id;
    const ids = wanted === undefined ? undefined : (Array.isArray(wanted) ? wanted : [wanted]).filter((id): id is number => typeof id === "number");
    const found = await list.call(this.users, { offset: page.offset ?? 0, limit: page.limit, ...(ids === undefined ? {} : { ids }) });
    return { rows: found.rows.map(shown), total: found.total };
  }

  /** How many accounts there are (the users store's list counts them; a `where` is not read here). */
  async count(): Promise<number> {
    const list = this.users.list;
    return list === undefined ? 0 : (await list.call(this.users, { offset: 0, limit: 1 })).total;
  }

  /** Accounts are found on the back office's users page (by email), not by full-text search. */
  search(): Promise<SearchResults<UserFields>> {
    return Promise.reject(new Error("fw/admin: users are searched by email on the back office's users page, not by full-text search."));
  }

  async get(key: unknown): Promise<UserFields | undefined> {
    if (typeof key !== "number") return undefined;
    const user = await this.users.byId(key);
    return user === undefined ? undefined : shown(user);
  }

  insert(): Promise<UserFields> {
    return Promise.reject(new Error("fw/admin: users are made by signing up, not through the back office's store."));
  }

  update(): Promise<UserFields | undefined> {
    return Promise.reject(new Error("fw/admin: an account is changed on its own page of the back office."));
  }

  delete(): Promise<boolean> {
    return Promise.reject(new Error("fw/admin: an account is deleted by its user (/account)."));
  }
}

/** What the back office's other pages may show of a user: never the password hash nor the session epoch. */
function shown(user: UserFields): UserFields {
  return { id: user.id, email: user.email, passwordHash: "", sessionEpoch: "", ...(user.roles === undefined ? {} : { roles: user.roles }), ...(user.locked === true ? { locked: true } : {}) };
}
