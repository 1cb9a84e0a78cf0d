import type { AccountControl } from "../auth/account-control.js";
import type { UserFields, Users } from "../auth/users.js";
import { normalEmail } from "../http/email-address.js";
import { BadRequest, NotFound, NotImplemented, StateConflict } from "../http/failure.js";
import type { Request } from "../http/request.js";
import { Ok, Redirect, type Response } from "../http/response.js";
import type { Html } from "../html/node.js";
import type { ModelSpec } from "../resource/model.js";
import { NOTICE } from "../resource/model-pages.js";
import { pagesCounted } from "../resource/page-count.js";
import { pageNumber } from "../resource/page-number.js";
import { PAGE_SIZE } from "../resource/read-pages.js";
import { wordsOf } from "../resource/words.js";
import { Origin, Route, type HttpRoute } from "../routing/route.js";
import { countText, pager } from "./admin-index.js";
import { currentActor } from "./actor.js";
import type { Actor, AuditAction, AuditLog, AuditValue } from "./audit-log.js";
import type { AdminSection } from "./model-section.js";
import { USER_KEY } from "./users-model.js";

/** The most characters of a search (`?q=`) read. */
const MAX_SEARCH = 254;

/** A one-button form of the back office: a POST with its CSRF token and, for a role, the role's name. */
function button(request: Request, action: string, submit: string, role?: string): Html {
  return (
    <form method="post" action={request.href(action)} class="fw-admin-action">
      <input type="hidden" name="_csrf" value={request.csrf} />
      {role === undefined ? null : <input type="hidden" name="role" value={role} />}
      <button type="submit">{submit}</button>
    </form>
  );
}

/** What the audit log keeps of an account: its email, roles and lock; never its password hash nor its session epoch. */
function userJson(user: UserFields): { readonly [field: string]: AuditValue } {
  return { email: user.email, roles: [...(user.roles ?? [])], locked: user.locked === true };
}

/** An account change's outcome: the user after it, or what was already so (nothing written, nothing recorded). */
type Changed<U> = { readonly user: U } | { readonly unchanged: string };

/**
 * The users in the back office (issue 41): a list searched by email (and by role), each user's
 * page with their roles (granted and revoked one at a time, from the app's declared roles: a
 * role no form may name otherwise), their account's lock and "sign out everywhere". Every change
 * is an admin write, kept in the audit log with the account before and after, and told to every
 * process once written (sockets closed, sessions ended; a lock also revokes the account's API
 * tokens). Nobody can take the back office from
 * its last unlocked holder: revoking its role from them, or locking them, is refused (409), and
 * an admin cannot lock their own account.
 */
export class UsersSection<U extends UserFields> implements AdminSection {
  readonly title = "Users";
  readonly path = "/users";

  constructor(
    private readonly control: AccountControl<U>,
    /** The app's roles, as the build read them from its user type: the only names the forms take. */
    private readonly roles: readonly string[],
    /** The role that opens the back office. */
    private readonly role: string,
    private readonly log: AuditLog,
    /** The back office's models that have an owner field: a user's page links to their rows. */
    private readonly owned: readonly ModelSpec<unknown>[],
    private readonly source: string,
  ) {}

  private get users(): Users<U> {
    return this.control.users;
  }

  async count(): Promise<number | undefined> {
    return (await this.users.list?.({ offset: 0, limit: 1 }))?.total;
  }

  routes(): readonly HttpRoute[] {
    const source = this.source;
    const params = { id: USER_KEY };
    const post = (path: string, handler: (request: Request) => Promise<Response>): HttpRoute => Route.http({ method: "POST", path, handler, params, origin: Origin.Resource, source });
    return [
      Route.http({ method: "GET", path: "/users", handler: (request) => this.index(request), origin: Origin.Resource, source }),
      Route.http({ method: "GET", path: "/users/:id", handler: (request) => this.show(request), params, origin: Origin.Resource, source }),
      post("/users/:id/grant", (request) => this.grant(request)),
      post("/users/:id/revoke", (request) => this.revoke(request)),
      post("/users/:id/lock", (request) => this.lock(request)),
      post("/users/:id/unlock", (request) => this.unlock(request)),
      post("/users/:id/sign-out", (request) => this.signOut(request)),
    ];
  }

  // ——— Pages ———

  private async index(request: Request): Promise<Response> {
    const list = this.users.list;
    if (list === undefined) throw new NotImplemented("This app's users store cannot list its users (it has no list): use InMemoryUsers or fw/db's SqlUsers, or add list to yours.");
    const page = pageNumber(request.query.get("page"));
    const search = normalEmail((request.query.get("q") ?? "").slice(0, MAX_SEARCH));
    const role = this.roleFilter(request.query.get("role"));
    const offset = (page - 1) * PAGE_SIZE;
    const found = await list.call(this.users, { offset, limit: PAGE_SIZE, ...(search === "" ? {} : { search }), ...(role === undefined ? {} : { role }) });
    // Users.list counts exactly.
    const counted = pagesCounted(found.total, Number.MAX_SAFE_INTEGER, PAGE_SIZE);
    if (page > counted.last) throw new NotFound(`There is no page ${page} of users here: there ${counted.last === 1 ? "is 1 page" : `are ${counted.last} pages`}.`);
    const at = (n: number): string => this.indexAt(request, search, role, n);
    return Ok(
      <>
        <title>Users · back office</title>
        <h1>Users</h1>
        <p class="fw-admin-count">{countText(found.total, counted, "user", "users")}{search !== "" || role !== undefined ? " match" : ""}</p>
        <form method="get" action={request.href("/users")} class="fw-admin-filter" role="search">
          <label>
            Email contains <input type="search" name="q" value={search} maxlength={String(MAX_SEARCH)} />
          </label>
          <label>
            Role{" "}
            <select name="role">
              <option value="">Any</option>
              {this.roles.map((name) => <option value={name} selected={name === role}>{name}</option>)}
            </select>
          </label>
          <button type="submit">Search</button> <a href={request.href("/users")}>Clear</a>
        </form>
        {found.rows.length === 0 ? <p class="fw-empty">No user{search !== "" || role !== undefined ? " matches" : " yet"}.</p> : this.table(request, found.rows)}
        {counted.last > 1 ? pager(page, counted, at) : null}
      </>,
    );
  }

  private table(request: Request, users: readonly U[]): Html {
    return (
      <table class="fw-index fw-admin-users">
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Roles</th>
            <th scope="col">Account</th>
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            <tr>
              <td><a href={request.href(`/users/${user.id}`)}>{user.email}</a></td>
              <td>{(user.roles ?? []).length === 0 ? "none" : (user.roles ?? []).join(", ")}</td>
              <td>{user.locked === true ? "Locked" : "Active"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  }

  private async show(request: Request): Promise<Response> {
    const user = await this.found(this.users, this.idOf(request));
    const at = `/users/${user.id}`;
    const held = new Set(user.roles ?? []);
    return Ok(
      <>
        <title>{`${user.email} · back office`}</title>
        <h1>{user.email}</h1>
        <dl class="fw-show">
          <dt>Number</dt>
          <dd>{String(user.id)}</dd>
          <dt>Roles</dt>
          <dd class="fw-admin-roles">{held.size === 0 ? "none" : [...held].join(", ")}</dd>
          <dt>Account</dt>
          <dd class="fw-admin-account">{user.locked === true ? "Locked: it cannot sign in" : "Active"}</dd>
        </dl>
        <h2>Roles</h2>
        {this.users.setRoles === undefined ? <p>This app's users store keeps no roles.</p> : (
          <ul class="fw-admin-role-list">
            {this.roles.map((role) => (
              <li>
                <strong>{role}</strong> {held.has(role) ? "(held)" : "(not held)"} {held.has(role) ? button(request, `${at}/revoke`, `Revoke ${role}`, role) : button(request, `${at}/grant`, `Grant ${role}`, role)}
              </li>
            ))}
          </ul>
        )}
        <h2>Account</h2>
        <div class="fw-controls">
          {this.users.setLocked === undefined ? null : user.locked === true ? button(request, `${at}/unlock`, "Unlock the account") : button(request, `${at}/lock`, "Lock the account")}
          {button(request, `${at}/sign-out`, "Sign out everywhere")}
        </div>
        {this.owned.length === 0 ? null : (
          <>
            <h2>Their rows</h2>
            <ul class="fw-admin-owned">
              {this.owned.map((model) => (
                <li>
                  <a href={request.href(`${model.path}?${encodeURIComponent(model.owner ?? "")}=${user.id}`)}>{wordsOf(model).many} of this user</a>
                </li>
              ))}
            </ul>
          </>
        )}
        <p>
          <a href={request.href(`/audit?model=User&key=${user.id}`)}>This account's history</a>{" "}
          <a href={request.href(`/audit?actor=${user.id}`)}>What this user did in the back office</a>{" "}
          <a href={request.href("/users")} class="fw-back">Back to users</a>
        </p>
      </>,
    );
  }

  // ——— Changes ———

  /** Grants one of the app's roles (the form's `role`); already held: nothing written. */
  private grant(request: Request): Promise<Response> {
    const role = this.formRole(request);
    return this.change(request, "grant", async (users, before) => {
      if (before.roles?.includes(role) === true) return { unchanged: `${before.email} holds ${role} already.` };
      return { user: (await this.setRoles(users, before, [...(before.roles ?? []), role])) ?? this.gone(before.id) };
    }, () => `${role} granted.`);
  }

  /** Revokes one of the app's roles; never the back office's from its last unlocked holder. */
  private revoke(request: Request): Promise<Response> {
    const role = this.formRole(request);
    return this.change(request, "revoke", async (users, before, actor) => {
      if (before.roles?.includes(role) !== true) return { unchanged: `${before.email} does not hold ${role}.` };
      if (role === this.role) await this.keepsAnAdmin(users, before, actor, "revoke");
      return { user: (await this.setRoles(users, before, (before.roles ?? []).filter((held) => held !== role))) ?? this.gone(before.id) };
    }, () => `${role} revoked.`);
  }

  /** Locks the account: it cannot sign in, and every session of it ends in every process. Never one's own. */
  private lock(request: Request): Promise<Response> {
    return this.change(request, "lock", async (users, before, actor) => {
      if (before.id === actor.id) throw new StateConflict("You cannot lock your own account: another admin can, and you would be signed out at once.");
      if (before.locked === true) return { unchanged: `${before.email} is locked already.` };
      if (before.roles?.includes(this.role) === true) await this.keepsAnAdmin(users, before, actor, "lock");
      return { user: (await this.setLocked(users, before.id, true)) ?? this.gone(before.id) };
    }, () => "The account is locked, and every session of it is signed out.");
  }

  private unlock(request: Request): Promise<Response> {
    return this.change(request, "unlock", async (users, before) => {
      if (before.locked !== true) return { unchanged: `${before.email} is not locked.` };
      return { user: (await this.setLocked(users, before.id, false)) ?? this.gone(before.id) };
    }, () => "The account is unlocked: it may sign in again.");
  }

  /** Ends every session of the user (a new session epoch), in every process. */
  private signOut(request: Request): Promise<Response> {
    return this.change(request, "sign-out", async (users, before) => ({ user: (await users.revokeAll(before.id)) ?? this.gone(before.id) }), () => "Every session of the account is signed out.");
  }

  /**
   * One account change, with its audit record, both or neither: the user read and changed in the
   * write's transaction (where the users store is fw/db's, every such change of one table waits
   * for the one before, so "is another admin left?" is answered right), then, once kept, every
   * process told. 303 back to the user's page with a notice; a refusal (409) changes nothing.
   */
  private async change(request: Request, action: AuditAction, apply: (users: Users<U>, before: U, actor: Actor) => Promise<Changed<U>>, notice: () => string): Promise<Response> {
    const id = this.idOf(request);
    const actor = currentActor();
    let changedIt = false;
    const outcome = await this.log.write(async (join) => {
      const users = await join(this.users);
      const before = await this.found(users, id);
      const changed = await apply(users, before, actor);
      if ("unchanged" in changed) return { result: changed.unchanged };
      changedIt = true;
      const after = changed.user;
      const record = { actor, action, model: "User", key: String(id), before: userJson(before), after: userJson(after) };
      const tell = action === "grant" || action === "revoke" ? () => this.control.rolesChanged(id) : action === "unlock" ? undefined : () => this.control.sessionsEnded(id);
      return { result: notice(), record, ...(tell === undefined ? {} : { after: tell }) };
    });
    // A locked account's API tokens go too, once the lock is kept (a token is no way around it).
    if (changedIt && action === "lock") await this.control.tokensRevoked(id);
    // Signed out of one's own account: this session ended too, and the back office is not theirs until they sign in again.
    if (id === actor.id && action === "sign-out") return Redirect("/").withSession(request.session.cleared().flash(NOTICE, outcome));
    return Redirect(request.href(`/users/${id}`)).withSession(request.session.flash(NOTICE, outcome));
  }

  /**
   * Refuses (409) a change that would leave no unlocked user holding the back office's role:
   * revoking it from, or locking, its last such holder (oneself included).
   */
  private async keepsAnAdmin(users: Users<U>, target: U, actor: Actor, action: "revoke" | "lock"): Promise<void> {
    const list = users.list;
    if (list === undefined) throw new NotImplemented("This app's users store cannot list its users (it has no list), so the back office cannot tell whether another admin is left: add list to it.");
    const holders = await list.call(users, { offset: 0, limit: 2, role: this.role, unlocked: true });
    if (holders.rows.some((user) => user.id !== target.id)) return;
    const who = target.id === actor.id ? "You are" : `${target.email} is`;
    const what = action === "revoke" ? `revoking ${this.role}` : "locking the account";
    throw new StateConflict(`${who} the last user holding ${this.role} who can sign in, so ${what} would leave nobody to run the back office. Grant ${this.role} to someone else first.`);
  }

  private setRoles(users: Users<U>, before: U, roles: readonly string[]): Promise<U | undefined> {
    const set = users.setRoles;
    if (set === undefined) throw new NotImplemented("This app's users store keeps no roles (it has no setRoles): use InMemoryUsers or fw/db's SqlUsers, or add setRoles to yours.");
    return set.call(users, before.id, roles);
  }

  private setLocked(users: Users<U>, id: number, locked: boolean): Promise<U | undefined> {
    const set = users.setLocked;
    if (set === undefined) throw new NotImplemented("This app's users store cannot lock an account (it has no setLocked): use InMemoryUsers or fw/db's SqlUsers, or add setLocked to yours.");
    return set.call(users, id, locked);
  }

  // ——— Reading the request ———

  private idOf(request: Request): number {
    // Read by USER_KEY once the role guard let the request in (back-office.tsx).
    return request.params["id"] as unknown as number;
  }

  private async found(users: Users<U>, id: number): Promise<U> {
    const user = await users.byId(id);
    if (user === undefined) throw new NotFound(`There is no user ${id}.`);
    return user;
  }

  private gone(id: number): never {
    throw new NotFound(`There is no user ${id}: the account was deleted meanwhile.`);
  }

  /** The form's `role`: one of the app's roles, or a 400 naming them (a role is never free text). */
  private formRole(request: Request): string {
    const role = request.form.get("role");
    if (role !== undefined && this.roles.includes(role)) return role;
    const named = role === undefined ? "no role" : JSON.stringify(role.slice(0, 64));
    throw new BadRequest(`The form names ${named}, which is not one of this app's roles: ${this.roles.join(", ")}.`);
  }

  private roleFilter(text: string | undefined): string | undefined {
    if (text === undefined || text === "") return undefined;
    if (this.roles.includes(text)) return text;
    throw new BadRequest(`The users are filtered by one of this app's roles (${this.roles.join(", ")}), not ${JSON.stringify(text.slice(0, 64))}.`);
  }

  private indexAt(request: Request, search: string, role: string | undefined, page: number): string {
    const parts = new URLSearchParams();
    if (search !== "") parts.set("q", search);
    if (role !== undefined) parts.set("role", role);
    if (page > 1) parts.set("page", String(page));
    const text = parts.toString();
    return request.href(text === "" ? "/users" : `/users?${text}`);
  }
}
