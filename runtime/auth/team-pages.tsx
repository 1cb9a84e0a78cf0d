import type { Html } from "../html/node.js";
import { field, problem } from "./sign-in-pages.js";
import type { Invitation, Member, MemberRole, Team } from "./teams.js";

/** The team pages' paths as the request reaches them; the per-team ones made by `TeamPaths.of`. */
export interface TeamPaths {
  readonly teams: string;
  readonly current: string;
  readonly join: string;
  readonly login: string;
  readonly signup: string | undefined;
  /** A team's own paths. */
  of(team: number): {
    readonly page: string;
    readonly invite: string;
    readonly leave: string;
    withdraw(invitation: number): string;
    member(user: number): string;
    remove(user: number): string;
  };
}

type Errors = Readonly<Record<string, string>> | undefined;

const ROLE_WORDS: Readonly<Record<MemberRole, string>> = { owner: "Owner", admin: "Admin", member: "Member" };

function csrfField(csrf: string): Html {
  return <input type="hidden" name="_csrf" value={csrf} />;
}

/** Your teams: each with your role, the one you act in marked, a switch, and a form to make a new one. */
export function teamsPage(paths: TeamPaths, state: { readonly csrf: string; readonly teams: readonly (Team & { readonly role: MemberRole })[]; readonly current: number | undefined; readonly name?: string; readonly errors?: Errors }): Html {
  return (
    <>
      <title>Your teams</title>
      <h1>Your teams</h1>
      {state.teams.length === 0 ? (
        <p>You are in no team yet. Make one, or ask a team's admin for an invitation.</p>
      ) : (
        <table class="fw-rows fw-teams">
          <thead>
            <tr><th scope="col">Team</th><th scope="col">Your role</th><th scope="col"><span class="fw-visually-hidden">Current</span></th></tr>
          </thead>
          <tbody>
            {state.teams.map((team) => (
              <tr>
                <td><a href={paths.of(team.id).page}>{team.name}</a></td>
                <td>{ROLE_WORDS[team.role]}</td>
                <td>
                  {team.id === state.current ? (
                    <strong aria-current="true">Current team</strong>
                  ) : (
                    <form method="post" action={paths.current} class="fw-inline">
                      {csrfField(state.csrf)}
                      <input type="hidden" name="team" value={String(team.id)} />
                      <button type="submit">Work in {team.name}</button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <section>
        <h2>New team</h2>
        <form method="post" action={paths.teams} class="fw-form fw-auth" novalidate>
          {csrfField(state.csrf)}
          {field("new-team", "name", "Name", { type: "text", maxlength: "100", value: state.name ?? "" }, state.errors)}
          <button type="submit">Make the team</button>
        </form>
      </section>
    </>
  );
}

/** What a team's page shows: its members, and for its admins the invitations and the forms that change them. */
export interface TeamState {
  readonly csrf: string;
  readonly team: Team;
  readonly viewer: { readonly user: number; readonly role: MemberRole };
  readonly members: readonly Member[];
  readonly invitations: readonly Invitation[];
  readonly email?: string;
  readonly role?: string;
  readonly errors?: Errors;
}

/** The member roles `viewer` may give: an owner any, an admin admin and member; a member none. */
export function grantable(viewer: MemberRole): readonly MemberRole[] {
  return viewer === "owner" ? ["owner", "admin", "member"] : viewer === "admin" ? ["admin", "member"] : [];
}

/** Whether `viewer` may change or remove `member`: an owner anyone; an admin admins and members; themself never here (they leave). */
export function manages(viewer: { readonly user: number; readonly role: MemberRole }, member: Member): boolean {
  if (member.user === viewer.user) return false;
  return viewer.role === "owner" || (viewer.role === "admin" && member.role !== "owner");
}

export function teamPage(paths: TeamPaths, state: TeamState): Html {
  const at = paths.of(state.team.id);
  const roles = grantable(state.viewer.role);
  return (
    <>
      <title>{state.team.name}</title>
      <h1>{state.team.name}</h1>
      <p>You are {state.viewer.role === "owner" ? "an owner" : state.viewer.role === "admin" ? "an admin" : "a member"} of this team. <a href={paths.teams}>All your teams</a></p>
      <section>
        <h2>Members</h2>
        <table class="fw-rows fw-members">
          <thead>
            <tr><th scope="col">Email</th><th scope="col">Role</th>{roles.length > 0 ? <th scope="col"><span class="fw-visually-hidden">Change</span></th> : null}</tr>
          </thead>
          <tbody>
            {state.members.map((member) => (
              <tr id={`member-${member.user}`}>
                <td>{member.email}</td>
                <td>{ROLE_WORDS[member.role]}</td>
                {roles.length === 0 ? null : <td>{manages(state.viewer, member) ? memberForms(at, state.csrf, member, roles) : null}</td>}
              </tr>
            ))}
          </tbody>
        </table>
        <form method="post" action={at.leave} class="fw-inline">
          {csrfField(state.csrf)}
          <button type="submit">Leave the team</button>
        </form>
      </section>
      {roles.length === 0 ? null : invitationsSection(at, state, roles)}
    </>
  );
}

function memberForms(at: ReturnType<TeamPaths["of"]>, csrf: string, member: Member, roles: readonly MemberRole[]): Html {
  return (
    <>
      <form method="post" action={at.member(member.user)} class="fw-inline">
        {csrfField(csrf)}
        <label class="fw-visually-hidden" for={`role-${member.user}`}>Role of {member.email}</label>
        <select id={`role-${member.user}`} name="role">
          {roles.map((role) => <option value={role} selected={role === member.role}>{ROLE_WORDS[role]}</option>)}
        </select>
        <button type="submit">Change role</button>
      </form>
      <form method="post" action={at.remove(member.user)} class="fw-inline">
        {csrfField(csrf)}
        <button type="submit">Remove {member.email}</button>
      </form>
    </>
  );
}

function invitationsSection(at: ReturnType<TeamPaths["of"]>, state: TeamState, roles: readonly MemberRole[]): Html {
  return (
    <section>
      <h2>Invite someone</h2>
      <p>We mail them a link that works once, for a week; they join when they follow it, signed in with that email (or once they sign up with it).</p>
      {problem(state.errors?.["form"])}
      <form method="post" action={at.invite} class="fw-form fw-auth" novalidate>
        {csrfField(state.csrf)}
        {field("invite", "email", "Email", { type: "email", autocomplete: "off", value: state.email ?? "" }, state.errors)}
        <div class="fw-field">
          <label for="invite-role">Role</label>
          <select id="invite-role" name="role">
            {roles.map((role) => <option value={role} selected={role === (state.role ?? "member")}>{ROLE_WORDS[role]}</option>)}
          </select>
          {state.errors?.["role"] === undefined ? null : <p class="fw-field-error">{state.errors["role"]}</p>}
        </div>
        <button type="submit">Send the invitation</button>
      </form>
      {state.invitations.length === 0 ? null : (
        <>
          <h3>Waiting</h3>
          <ul class="fw-invitations">
            {state.invitations.map((invitation) => (
              <li>
                {invitation.email} ({ROLE_WORDS[invitation.role]}), until {new Date(invitation.expiresAt).toISOString().slice(0, 10)}{" "}
                <form method="post" action={at.withdraw(invitation.id)} class="fw-inline">
                  {csrfField(state.csrf)}
                  <button type="submit">Withdraw</button>
                </form>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** An invitation, to the signed-in user it is for: one button joins. */
export function joinPage(paths: TeamPaths, csrf: string, invitation: { readonly teamName: string; readonly role: MemberRole; readonly email: string }): Html {
  return (
    <>
      <title>Join {invitation.teamName}</title>
      <h1>Join {invitation.teamName}</h1>
      <p>You are invited to {invitation.teamName} as {invitation.role === "member" ? "a member" : `an ${invitation.role}`}, as {invitation.email}.</p>
      <form method="post" action={paths.join} class="fw-form fw-auth">
        {csrfField(csrf)}
        <button type="submit">Join {invitation.teamName}</button>
      </form>
    </>
  );
}

/** An invitation opened by nobody signed in: sign in (or up) with its email, then come back to it. */
export function joinSignedOutPage(paths: TeamPaths, invitation: { readonly teamName: string; readonly email: string }, back: string): Html {
  const next = encodeURIComponent(back);
  return (
    <>
      <title>Join {invitation.teamName}</title>
      <h1>Join {invitation.teamName}</h1>
      <p>This invitation is for {invitation.email}. Sign in with it to join{paths.signup === undefined ? "" : ", or make an account with it first"}.</p>
      <p>
        <a href={`${paths.login}?next=${next}`}>Sign in</a>
        {paths.signup === undefined ? null : <> or <a href={`${paths.signup}?next=${next}`}>sign up</a></>}
      </p>
    </>
  );
}

/** An invitation link that no longer works, or is for someone else: what to do. */
export function deadInvitationPage(paths: TeamPaths, reason: string): Html {
  return (
    <>
      <title>This invitation does not work</title>
      <h1>This invitation does not work</h1>
      <p class="fw-auth-error" role="alert">{reason}</p>
      <p><a href={paths.teams}>Your teams</a></p>
    </>
  );
}

/** The invitation mail. */
export function invitationMail(link: string, team: string, by: string, role: MemberRole): Html {
  return (
    <>
      <p>{by} invites you to the team {team} as {role === "member" ? "a member" : `an ${role}`}.</p>
      <p><a href={link}>Join {team}</a></p>
      <p>The link works once, for a week, for this email address. If you did not expect it, ignore this mail.</p>
    </>
  );
}
