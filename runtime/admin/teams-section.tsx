import type { AccountControl } from "../auth/account-control.js";
import type { Member, MemberRole, Team, TeamStore } from "../auth/teams.js";
import { BadRequest, NotFound, NotImplemented, StateConflict } from "../http/failure.js";
import { readWholeNumber } from "../http/number-text.js";
import type { Request } from "../http/request.js";
import { Ok, Redirect, type Response } from "../http/response.js";
import { NOTICE } from "../resource/model-pages.js";
import { pagesCounted } from "../resource/page-count.js";
import { pageNumber } from "../resource/page-number.js";
import { PAGE_SIZE } from "../resource/read-pages.js";
import type { FromPath } from "../routing/from-path.js";
import { Origin, Route, type HttpRoute } from "../routing/route.js";
import { countText, pager } from "./admin-index.js";
import { currentActor } from "./actor.js";
import type { AuditAction, AuditLog, AuditValue } from "./audit-log.js";
import type { Logged } from "./audit-section.js";
import type { AdminSection } from "./model-section.js";

/** The most characters of a search (`?q=`) read: a team's name is at most 100. */
const MAX_SEARCH = 100;

/**
 * The member roles, highest first, as fw/auth's MEMBER_ROLES (fw/admin imports fw/auth's types
 * alone): a record over `MemberRole`, so a role added there fails the type check here until added.
 */
const RANKS: Readonly<Record<MemberRole, number>> = { owner: 0, admin: 1, member: 2 };
const MEMBER_ROLES = (Object.keys(RANKS) as MemberRole[]).sort((a, b) => RANKS[a] - RANKS[b]);

function isMemberRole(text: string | undefined): text is MemberRole {
  return text !== undefined && Object.hasOwn(RANKS, text);
}

/** The model name the audit log gives teams. */
export const TEAM_MODEL = "Team";

/** The teams' entry of the audit log's `?model=`. */
export const TEAMS_LOGGED: Logged = { name: TEAM_MODEL, path: "/teams" };

/** A key in a path (a team's, a member's user): a whole number from 1. */
function keyParam(type: string): FromPath<number> {
  return {
    type,
    read: (segment) => {
      const value = readWholeNumber(segment, 1, Number.MAX_SAFE_INTEGER);
      return value === undefined ? undefined : { value };
    },
  };
}

/** What the audit log keeps of a membership: the team, the member (key and email then) and their role. */
function memberJson(team: Team, member: Member, role: MemberRole = member.role): { readonly [field: string]: AuditValue } {
  return { team: team.id, name: team.name, user: member.user, email: member.email, role };
}

/**
 * The teams in the back office (issue 41), present when the sign-in keeps teams
 * (`formSignIn({ teams: true })`): every team, searched by name, with its member count; a team's
 * page with its members (each linking to their account) and its waiting invitations; a member's
 * role changed and a member removed. Each change is an admin write, kept in the audit log with
 * the membership before and after, and told to every process once kept (the member's next
 * request, and their sockets, see it). A team keeps an owner: demoting or removing its last is
 * refused (409), as on the team's own pages. Teams are made, named and left on their own pages
 * (`/teams`); the back office deletes none (a team's rows go with it).
 */
export class TeamsSection implements AdminSection {
  readonly title = "Teams";
  readonly path = "/teams";

  constructor(
    private readonly teams: TeamStore,
    private readonly control: Pick<AccountControl, "rolesChanged">,
    private readonly log: AuditLog,
    private readonly source: string,
  ) {}

  async count(): Promise<number | undefined> {
    return (await this.teams.list?.({ offset: 0, limit: 1 }))?.total;
  }

  routes(): readonly HttpRoute[] {
    const source = this.source;
    const team = { id: keyParam("Id<Team>") };
    const member = { ...team, member: keyParam("Id<User>") };
    const post = (path: string, handler: (request: Request) => Promise<Response>): HttpRoute => Route.http({ method: "POST", path, handler, params: member, origin: Origin.Resource, source });
    return [
      Route.http({ method: "GET", path: "/teams", handler: (request) => this.index(request), origin: Origin.Resource, source }),
      Route.http({ method: "GET", path: "/teams/:id", handler: (request) => this.show(request), params: team, origin: Origin.Resource, source }),
      post("/teams/:id/members/:member/role", (request) => this.setRole(request)),
      post("/teams/:id/members/:member/remove", (request) => this.remove(request)),
    ];
  }

  // ——— Pages ———

  private async index(request: Request): Promise<Response> {
    const list = this.teams.list;
    if (list === undefined) throw new NotImplemented("This app's team store cannot list its teams (it has no list): use fw/db's SqlUsers (users.teams()), or add list to yours.");
    const page = pageNumber(request.query.get("page"));
    const search = (request.query.get("q") ?? "").trim().slice(0, MAX_SEARCH);
    const found = await list.call(this.teams, { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE, ...(search === "" ? {} : { search }) });
    // TeamStore.list counts exactly.
    const counted = pagesCounted(found.total, Number.MAX_SAFE_INTEGER, PAGE_SIZE);
    if (page > counted.last) throw new NotFound(`There is no page ${page} of teams here: there ${counted.last === 1 ? "is 1 page" : `are ${counted.last} pages`}.`);
    const at = (n: number): string => {
      const parts = new URLSearchParams();
      if (search !== "") parts.set("q", search);
      if (n > 1) parts.set("page", String(n));
      const text = parts.toString();
      return request.href(text === "" ? "/teams" : `/teams?${text}`);
    };
    return Ok(
      <>
        <title>Teams · back office</title>
        <h1>Teams</h1>
        <p class="fw-admin-count">{countText(found.total, counted, "team", "teams")}{search !== "" ? " match" : ""}</p>
        <form method="get" action={request.href("/teams")} class="fw-admin-filter" role="search">
          <label>
            Name contains <input type="search" name="q" value={search} maxlength={String(MAX_SEARCH)} />
          </label>
          <button type="submit">Search</button> <a href={request.href("/teams")}>Clear</a>
        </form>
        {found.rows.length === 0 ? <p class="fw-empty">No team{search !== "" ? " matches" : " yet"}.</p> : (
          <table class="fw-index fw-admin-teams">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Members</th>
              </tr>
            </thead>
            <tbody>
              {found.rows.map((team) => (
                <tr>
                  <td><a href={request.href(`/teams/${team.id}`)}>{team.name}</a></td>
                  <td>{String(team.members)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {counted.last > 1 ? pager(page, counted, at) : null}
      </>,
    );
  }

  private async show(request: Request): Promise<Response> {
    const id = this.key(request, "id");
    const team = await this.found(this.teams, id);
    const [members, invitations] = await Promise.all([this.teams.members(id), this.teams.invitations(id, Date.now())]);
    const at = `/teams/${id}`;
    return Ok(
      <>
        <title>{`${team.name} · back office`}</title>
        <h1>{team.name}</h1>
        <h2>Members</h2>
        <table class="fw-index fw-admin-members">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {members.map((member) => (
              <tr>
                <td><a href={request.href(`/users/${member.user}`)}>{member.email}</a></td>
                <td class="fw-admin-member-role">{member.role}</td>
                <td>
                  <form method="post" action={request.href(`${at}/members/${member.user}/role`)} class="fw-admin-action">
                    <input type="hidden" name="_csrf" value={request.csrf} />
                    <label>
                      Role{" "}
                      <select name="role">
                        {MEMBER_ROLES.map((role) => <option value={role} selected={role === member.role}>{role}</option>)}
                      </select>
                    </label>{" "}
                    <button type="submit">Change role</button>
                  </form>{" "}
                  <form method="post" action={request.href(`${at}/members/${member.user}/remove`)} class="fw-admin-action">
                    <input type="hidden" name="_csrf" value={request.csrf} />
                    <button type="submit">Remove from the team</button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <h2>Waiting invitations</h2>
        {invitations.length === 0 ? <p class="fw-empty">None.</p> : (
          <ul class="fw-admin-invitations">
            {invitations.map((invitation) => <li>{invitation.email} as {invitation.role}, until {new Date(invitation.expiresAt).toISOString().slice(0, 16).replace("T", " ")} UTC</li>)}
          </ul>
        )}
        <p>
          <a href={request.href(`/audit?model=${TEAM_MODEL}&key=${id}`)}>This team's history</a>{" "}
          <a href={request.href("/teams")} class="fw-back">Back to teams</a>
        </p>
      </>,
    );
  }

  // ——— Changes ———

  /** A member's role, one of owner, admin and member (anything else a 400); never the last owner's taken away. */
  private setRole(request: Request): Promise<Response> {
    const role = request.form.get("role");
    if (!isMemberRole(role)) throw new BadRequest(`A team member's role is one of ${MEMBER_ROLES.join(", ")}, not ${role === undefined ? "nothing" : JSON.stringify(role.slice(0, 64))}.`);
    return this.change(request, "member-role", async (teams, team, member) => {
      if (member.role === role) return `${member.email} is ${article(role)} of ${team.name} already.`;
      return { outcome: await teams.setRole(team.id, member.user, role), after: memberJson(team, member, role), notice: `${member.email} is now ${article(role)} of ${team.name}.` };
    });
  }

  private remove(request: Request): Promise<Response> {
    return this.change(request, "member-remove", async (teams, team, member) => ({
      outcome: await teams.remove(team.id, member.user),
      after: undefined,
      notice: `${member.email} is removed from ${team.name}.`,
    }));
  }

  /**
   * One change to a member, with its audit record, both or neither (the team store joins the
   * audit log's transaction where it is fw/db's), then, once kept, the member's access told to
   * every process. 303 back to the team's page; a refusal changes nothing.
   */
  private async change(
    request: Request,
    action: Extract<AuditAction, "member-role" | "member-remove">,
    apply: (teams: TeamStore, team: Team, member: Member) => Promise<string | { readonly outcome: string; readonly after: { readonly [field: string]: AuditValue } | undefined; readonly notice: string }>,
  ): Promise<Response> {
    const id = this.key(request, "id");
    const user = this.key(request, "member");
    const actor = currentActor();
    const notice = await this.log.write(async (join) => {
      const teams = await join(this.teams);
      const team = await this.found(teams, id);
      const member = (await teams.members(id)).find((m) => m.user === user);
      if (member === undefined) throw new NotFound(`User ${user} is not a member of ${team.name}.`);
      const done = await apply(teams, team, member);
      if (typeof done === "string") return { result: done };
      if (done.outcome === "last owner") throw new StateConflict(`${member.email} is the last owner of ${team.name}: make another member an owner first, so the team keeps one.`);
      if (done.outcome !== "changed") throw new NotFound(`${member.email} is no longer a member of ${team.name}.`);
      const record = { actor, action, model: TEAM_MODEL, key: String(id), before: memberJson(team, member), ...(done.after === undefined ? {} : { after: done.after }) };
      return { result: done.notice, record, after: () => this.control.rolesChanged(user) };
    });
    return Redirect(request.href(`/teams/${id}`)).withSession(request.session.flash(NOTICE, notice));
  }

  // ——— Reading the request ———

  private key(request: Request, name: "id" | "member"): number {
    // Read by keyParam once the role guard let the request in (back-office.tsx).
    return request.params[name] as unknown as number;
  }

  private async found(teams: TeamStore, id: number): Promise<Team> {
    const team = await teams.get(id);
    if (team === undefined) throw new NotFound(`There is no team ${id}.`);
    return team;
  }
}

/** "an owner", "an admin", "a member". */
function article(role: MemberRole): string {
  return role === "member" ? "a member" : `an ${role}`;
}
