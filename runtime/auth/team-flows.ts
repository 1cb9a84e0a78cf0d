import { createHash, randomBytes } from "node:crypto";
import { BadRequest, Forbidden, NotFound } from "../http/failure.js";
import type { Request } from "../http/request.js";
import { Ok, Redirect, status, type Response } from "../http/response.js";
import { withoutReserved, withReserved } from "../http/session.js";
import { Route } from "../routing/route.js";
import { MAILS_PER_ADDRESS, type AccountMailer } from "./accounts.js";
import { safeNext } from "./next-path.js";
import { limiterKey, RateLimiter, type AttemptLimiter } from "./rate-limit.js";
import { checkEmail } from "./signup.js";
import { deadInvitationPage, grantable, invitationMail, joinPage, joinSignedOutPage, manages, teamPage, teamsPage, type TeamPaths, type TeamState } from "./team-pages.js";
import { currentMembership, isMemberRole, TEAM_ENTRY, type Invitation, type Membership, type MemberRole, type TeamStore } from "./teams.js";
import { normalEmail, type UserFields, type Users } from "./users.js";

/** How long an invitation link works: a week. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;
/** Invitations one team may have waiting at once. */
export const MAX_WAITING_INVITATIONS = 50;
/** Teams one user may be in (make or join). */
export const MAX_TEAMS_PER_USER = 100;
/** The longest team name. */
export const MAX_TEAM_NAME_LENGTH = 100;

/** The session entry holding an invitation's token once it left the URL. */
const INVITE_ENTRY = "_invite";

/** What the team pages work with, from `formSignIn`. */
export interface TeamSettings<U extends UserFields> {
  readonly users: Users<U>;
  readonly store: TeamStore;
  readonly mailer: AccountMailer;
  readonly base: string;
  readonly loginPath: string;
  readonly signupPath: string | undefined;
  /** The user a request's session signs in (the guard's read, memberships included). */
  readonly currentUser: (request: Request) => Promise<U | undefined>;
  /** What user `id` may reach changed: their sockets close in every process, to be asked again. */
  readonly accessChanged: (id: number) => void;
  readonly report?: (line: string) => void;
  readonly now?: () => number;
}

/**
 * The team pages of fw/auth (issue 41), on with `formSignIn({ …, teams: true })`: your teams
 * (make one, pick the one you work in), a team's members (invite by mail, change a role, remove,
 * leave), and the invitation link. Who may do what: any member sees the team and may leave; its
 * admins and owners invite, withdraw invitations and change or remove members below an owner;
 * only an owner gives or takes away the owner role; the last owner can neither leave nor be
 * demoted or removed. A team page is a 404 to anyone not in the team, so a team's key tells an
 * outsider nothing. Every change takes effect at the member's next request in every process
 * (memberships are read with the user), and their sockets close.
 */
export class TeamFlows<U extends UserFields> {
  private readonly paths: { readonly teams: string; readonly current: string; readonly join: string; readonly team: string };
  private readonly mails: AttemptLimiter;
  private readonly now: () => number;

  constructor(private readonly settings: TeamSettings<U>) {
    const base = `${settings.base}/teams`;
    this.paths = { teams: base, current: `${base}/current`, join: `${base}/join`, team: `${base}/:team` };
    this.mails = settings.users.attemptLimiter?.("teams/mails-per-email", MAILS_PER_ADDRESS) ?? new RateLimiter(MAILS_PER_ADDRESS);
    this.now = settings.now ?? Date.now;
  }

  /** The routes, for `formSignIn` to carry (the join path before a team's, which would take it for a key). */
  routes(): Route[] {
    const source = "fw/auth";
    const { teams, current, join, team } = this.paths;
    return [
      Route.get(teams, (request) => this.list(request), { source }),
      Route.post(teams, (request) => this.create(request), { source }),
      Route.post(current, (request) => this.pick(request), { source }),
      Route.get(join, (request) => this.joinForm(request), { source }),
      Route.post(join, (request) => this.join(request), { source }),
      Route.get(team, (request) => this.page(request), { source }),
      Route.post(`${team}/invitations`, (request) => this.invite(request), { source }),
      Route.post(`${team}/invitations/:invitation/delete`, (request) => this.withdraw(request), { source }),
      Route.post(`${team}/members/:member`, (request) => this.changeRole(request), { source }),
      Route.post(`${team}/members/:member/delete`, (request) => this.remove(request), { source }),
      Route.post(`${team}/leave`, (request) => this.leave(request), { source }),
    ];
  }

  // ——— Your teams ———

  private async list(request: Request, form?: { readonly name: string; readonly errors: Record<string, string> }): Promise<Response> {
    const user = await this.settings.currentUser(request);
    if (user === undefined) return this.toLogin(request, this.paths.teams);
    const teams = await this.settings.store.teamsOf(user.id);
    const page = teamsPage(this.mounted(request), { csrf: request.csrf, teams, current: currentMembership(user.teams, request.session)?.team, ...(form === undefined ? {} : form) });
    return form === undefined ? Ok(page) : status(422, page);
  }

  private async create(request: Request): Promise<Response> {
    const user = await this.settings.currentUser(request);
    if (user === undefined) return this.toLogin(request, this.paths.teams);
    const name = (request.form.get("name") ?? "").trim();
    const problem = teamNameProblem(name);
    if (problem !== undefined) return this.list(request, { name: name.slice(0, MAX_TEAM_NAME_LENGTH + 1), errors: { name: problem } });
    if ((user.teams?.length ?? 0) >= MAX_TEAMS_PER_USER) return this.list(request, { name, errors: { name: `You are in ${MAX_TEAMS_PER_USER} teams, the most one account may be in: leave one first.` } });
    const team = await this.settings.store.create(name, user.id);
    this.settings.accessChanged(user.id);
    return Redirect(this.mounted(request).of(team.id).page).withSession(withReserved(request.session, TEAM_ENTRY, String(team.id)).flash("notice", `The team ${name} is made; you work in it now.`));
  }

  /** Picks the team the user works in: one of theirs (a 404 for any other key), kept in the session. */
  private async pick(request: Request): Promise<Response> {
    const user = await this.settings.currentUser(request);
    if (user === undefined) return this.toLogin(request, this.paths.teams);
    const membership = this.membershipOf(user, request.form.get("team"));
    const next = safeNext(request.form.get("next") ?? undefined);
    this.settings.accessChanged(user.id);
    return Redirect(next === "/" ? this.mounted(request).teams : next).withSession(withReserved(request.session, TEAM_ENTRY, String(membership.team)).flash("notice", "You work in this team now."));
  }

  // ——— A team ———

  private async page(request: Request, form?: Pick<TeamState, "email" | "role" | "errors">, code = 200): Promise<Response> {
    const { user, membership } = await this.member(request);
    const store = this.settings.store;
    const team = await store.get(membership.team);
    if (team === undefined) throw this.notFound();
    const admin = grantable(membership.role).length > 0;
    const [members, invitations] = await Promise.all([store.members(team.id), admin ? store.invitations(team.id, this.now()) : Promise.resolve([])]);
    const page = teamPage(this.mounted(request), { csrf: request.csrf, team, viewer: { user: user.id, role: membership.role }, members, invitations, ...form });
    return code === 200 ? Ok(page) : status(code, page);
  }

  private async invite(request: Request): Promise<Response> {
    const { user, membership } = await this.member(request);
    const roles = this.adminRoles(membership);
    const typed = (request.form.get("email") ?? "").trim();
    const role = request.form.get("role") ?? "member";
    const refused = (errors: Record<string, string>, code = 422): Promise<Response> => this.page(request, { email: typed.slice(0, 255), role, errors }, code);
    if (!isMemberRole(role) || !roles.includes(role)) return refused({ role: roleRefusal(role, membership.role) }, 400);
    const problem = checkEmail(typed);
    if (problem !== undefined) return refused({ email: problem });
    const email = normalEmail(typed);
    const store = this.settings.store;
    if ((await store.members(membership.team)).some((member) => member.email === email)) return refused({ email: `${email} is a member of this team already.` });
    const waiting = await store.invitations(membership.team, this.now());
    if (waiting.length >= MAX_WAITING_INVITATIONS && !waiting.some((invitation) => invitation.email === email)) {
      return refused({ form: `This team has ${MAX_WAITING_INVITATIONS} invitations waiting, the most it may have: withdraw some first.` });
    }
    const token = randomBytes(32).toString("base64url");
    await store.invite({ team: membership.team, email, role, by: user.id, tokenHash: tokenHash(token), expiresAt: this.now() + INVITATION_TTL_MS });
    const team = await store.get(membership.team);
    this.mail(email, `Join ${team?.name ?? "a team"}`, invitationMail(`${this.mounted(request).join}?token=${token}`, team?.name ?? "a team", user.email, role));
    return Redirect(this.mounted(request).of(membership.team).page).withSession(request.session.flash("notice", `We sent ${email} an invitation: it works once, for a week.`));
  }

  private async withdraw(request: Request): Promise<Response> {
    const { membership } = await this.member(request);
    this.adminRoles(membership);
    const invitation = keyOf(this.param(request, "invitation"));
    if (invitation === undefined || !(await this.settings.store.withdraw(membership.team, invitation))) throw new NotFound("There is no such invitation in this team: it was accepted or withdrawn already.");
    return Redirect(this.mounted(request).of(membership.team).page).withSession(request.session.flash("notice", "The invitation is withdrawn: its link no longer works."));
  }

  private async changeRole(request: Request): Promise<Response> {
    const { user, membership } = await this.member(request);
    const roles = this.adminRoles(membership);
    const target = await this.managedMember(user.id, membership, this.param(request, "member"));
    const role = request.form.get("role");
    if (!isMemberRole(role) || !roles.includes(role)) throw new BadRequest(roleRefusal(role, membership.role));
    const changed = await this.settings.store.setRole(membership.team, target.user, role);
    if (changed === "last owner") return this.page(request, { errors: { form: `${target.email} is the team's last owner: make another member an owner first.` } }, 409);
    if (changed === "no such member") throw new NotFound(`${target.email} is no longer in this team.`);
    this.settings.accessChanged(target.user);
    return Redirect(this.mounted(request).of(membership.team).page).withSession(request.session.flash("notice", `${target.email} is now ${role === "member" ? "a member" : `an ${role}`}.`));
  }

  private async remove(request: Request): Promise<Response> {
    const { user, membership } = await this.member(request);
    this.adminRoles(membership);
    const target = await this.managedMember(user.id, membership, this.param(request, "member"));
    const removed = await this.settings.store.remove(membership.team, target.user);
    if (removed === "last owner") return this.page(request, { errors: { form: `${target.email} is the team's last owner: make another member an owner first.` } }, 409);
    if (removed === "no such member") throw new NotFound(`${target.email} is no longer in this team.`);
    this.settings.accessChanged(target.user);
    return Redirect(this.mounted(request).of(membership.team).page).withSession(request.session.flash("notice", `${target.email} is removed from the team.`));
  }

  private async leave(request: Request): Promise<Response> {
    const { user, membership } = await this.member(request);
    const left = await this.settings.store.remove(membership.team, user.id);
    if (left === "last owner") return this.page(request, { errors: { form: "You are this team's last owner, so you cannot leave it: make another member an owner first." } }, 409);
    this.settings.accessChanged(user.id);
    return Redirect(this.mounted(request).teams).withSession(withoutReserved(request.session, TEAM_ENTRY).flash("notice", "You left the team."));
  }

  // ——— The invitation link ———

  /** GET with `?token=`: kept in the session, then the same path without it (303). */
  private async joinForm(request: Request): Promise<Response> {
    const token = request.query.get("token");
    if (token !== undefined) return Redirect(this.mounted(request).join).withHeader("referrer-policy", "no-referrer").withSession(withReserved(request.session, INVITE_ENTRY, token.slice(0, 100)));
    const found = await this.invitation(request);
    if ("response" in found) return found.response;
    const { invitation, user } = found;
    if (user === undefined) return Ok(joinSignedOutPage(this.mounted(request), invitation, `${this.mounted(request).join}?token=${found.token}`)).withHeader("referrer-policy", "no-referrer");
    return Ok(joinPage(this.mounted(request), request.csrf, invitation));
  }

  private async join(request: Request): Promise<Response> {
    const found = await this.invitation(request);
    if ("response" in found) return found.response;
    if (found.user === undefined) return this.toLogin(request, this.paths.join);
    const accepted = await this.settings.store.accept(tokenHash(found.token), found.user.id, this.now());
    if (accepted === "gone" || accepted === "expired") return this.deadInvitation(request, accepted);
    const session = withReserved(withoutReserved(request.session, INVITE_ENTRY), TEAM_ENTRY, String(accepted.team));
    this.settings.accessChanged(found.user.id);
    const notice = accepted.already ? `You are in ${found.invitation.teamName} already; you work in it now.` : `You joined ${found.invitation.teamName}; you work in it now.`;
    return Redirect(this.mounted(request).of(accepted.team).page).withSession(session.flash("notice", notice));
  }

  /**
   * The invitation the session holds, when it may be used here: it exists (not accepted nor
   * withdrawn), has not expired, and whoever is signed in is the address it was sent to (a
   * forwarded link, opened by another signed-in user, is refused: the link is the invitee's alone).
   */
  private async invitation(request: Request): Promise<{ readonly response: Response } | { readonly invitation: Invitation & { readonly teamName: string }; readonly user: U | undefined; readonly token: string }> {
    const token = request.session.get(INVITE_ENTRY);
    if (token === undefined) return { response: this.deadInvitation(request, "gone") };
    const invitation = await this.settings.store.invitation(tokenHash(token));
    if (invitation === undefined) return { response: this.deadInvitation(request, "gone") };
    if (invitation.expiresAt <= this.now()) return { response: this.deadInvitation(request, "expired") };
    const user = await this.settings.currentUser(request);
    if (user !== undefined && user.email !== invitation.email) {
      return { response: status(403, deadInvitationPage(this.mounted(request), `This invitation is for another email address than the one you are signed in with (${user.email}). Sign in with the address the invitation was sent to, or ask for an invitation to yours.`)) };
    }
    return { invitation, user, token };
  }

  private deadInvitation(request: Request, why: "gone" | "expired"): Response {
    const reason = why === "expired" ? "This invitation has expired: ask the team's admin for a new one." : "This invitation link does not work: it was used already, withdrawn, replaced by a newer one, or copied wrong.";
    return status(410, deadInvitationPage(this.mounted(request), reason)).withSession(withoutReserved(request.session, INVITE_ENTRY));
  }

  // ——— Helpers ———

  /** The signed-in user and their membership of the path's team; a 404 for anyone not in it (nobody signed in included). */
  private async member(request: Request): Promise<{ readonly user: U; readonly membership: Membership }> {
    const user = await this.settings.currentUser(request);
    if (user === undefined) throw this.notFound();
    return { user, membership: this.membershipOf(user, this.param(request, "team")) };
  }

  private membershipOf(user: U, team: string | undefined): Membership {
    const key = keyOf(team);
    const membership = key === undefined ? undefined : user.teams?.find((held) => held.team === key);
    if (membership === undefined) throw this.notFound();
    return membership;
  }

  /** The roles an admin or owner may give; a 403 for a member, who changes nothing. */
  private adminRoles(membership: Membership): readonly MemberRole[] {
    const roles = grantable(membership.role);
    if (roles.length === 0) throw new Forbidden("Only the team's admins and owners may invite, change or remove members.");
    return roles;
  }

  /** The member the path names, when the viewer may change them: a 404 for no such member, a 403 for an owner (to an admin) or themself. */
  private async managedMember(viewer: number, membership: Membership, member: string | undefined) {
    const key = keyOf(member);
    const target = key === undefined ? undefined : (await this.settings.store.members(membership.team)).find((held) => held.user === key);
    if (target === undefined) throw new NotFound("There is no such member in this team.");
    if (!manages({ user: viewer, role: membership.role }, target)) {
      throw new Forbidden(target.user === viewer ? "To leave the team, use Leave the team." : "Only an owner may change or remove an owner.");
    }
    return target;
  }

  private param(request: Request, name: string): string | undefined {
    return (request.params as Readonly<Record<string, string | undefined>>)[name];
  }

  private notFound(): NotFound {
    return new NotFound("There is no such team, or you are not in it.");
  }

  private toLogin(request: Request, back: string): Response {
    return Redirect(`${request.href(this.settings.loginPath)}?next=${encodeURIComponent(request.href(back))}`);
  }

  /** The paths as this request reaches them (under its table's prefix). */
  private mounted(request: Request): TeamPaths {
    const href = (path: string): string => request.href(path);
    const teams = href(this.paths.teams);
    return {
      teams,
      current: href(this.paths.current),
      join: href(this.paths.join),
      login: href(this.settings.loginPath),
      signup: this.settings.signupPath === undefined ? undefined : href(this.settings.signupPath),
      of: (team) => {
        const page = `${teams}/${team}`;
        return {
          page,
          invite: `${page}/invitations`,
          leave: `${page}/leave`,
          withdraw: (invitation) => `${page}/invitations/${invitation}/delete`,
          member: (user) => `${page}/members/${user}`,
          remove: (user) => `${page}/members/${user}/delete`,
        };
      },
    };
  }

  private mail(to: string, subject: string, body: Parameters<AccountMailer["send"]>[0]["body"]): void {
    const report = this.settings.report ?? ((line: string) => process.stderr.write(`${line}\n`));
    void this.mails
      .attempt(limiterKey("mail", to))
      .then((wait) => (wait > 0 ? undefined : this.settings.mailer.send({ to, subject, body, envelope: { to: [to] } })))
      .catch((error: unknown) => report(`fw/auth: the mail "${subject}" could not be sent: ${error instanceof Error ? error.message : String(error)}`));
  }
}

/** What is wrong with a team name, or undefined. */
function teamNameProblem(name: string): string | undefined {
  if (name === "") return "Give the team a name.";
  if (name.length > MAX_TEAM_NAME_LENGTH) return `A team name is at most ${MAX_TEAM_NAME_LENGTH} characters.`;
  if (/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(name)) return "A team name has no control characters nor direction overrides.";
  return undefined;
}

/** Why a role sent by a form is refused. */
function roleRefusal(role: string | undefined, viewer: MemberRole): string {
  if (!isMemberRole(role)) return `"${String(role).slice(0, 40)}" is not a member role: owner, admin or member.`;
  return `As ${viewer === "admin" ? "an admin" : `a ${viewer}`} you may not give the role ${role}: only an owner makes owners.`;
}

/** A team, invitation or member key as a path spells it; undefined for anything else. */
function keyOf(text: string | undefined): number | undefined {
  return text !== undefined && /^[1-9][0-9]{0,14}$/.test(text) ? Number(text) : undefined;
}

/** What the store keeps of an invitation's token. */
function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
