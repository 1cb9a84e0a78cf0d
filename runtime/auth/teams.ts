/**
 * Teams (issue 41): organisations whose members share rows. A team has members, each with a
 * member role (owner, admin, member); a model's rows can belong to a team (its policy's `team`
 * field), and its policy says what members may do (`can.member`, `can.memberAs("admin")`).
 * A user's memberships are read with the user, in the one read of the users store each request
 * makes, so a removed member loses access at the next request in every process. Which team a
 * user acts in is the session's current team while they are a member of it, else their first.
 */
import type { Session } from "../http/session.js";
import type { MemberRank } from "../resource/policy.js";
import type { Id } from "../resource/types.js";

/** A member's role in a team: an owner is an admin is a member (`can.memberAs("admin")` lets owners in too). */
export type MemberRole = MemberRank;

/** The member roles, highest first. */
export const MEMBER_ROLES: readonly MemberRole[] = ["owner", "admin", "member"];

/** A team, as a model's team field points at it (`team: Id<Team>`). */
export interface Team {
  readonly id: Id<Team>;
  readonly name: string;
}

/** One team of a user's, with their role in it: what the users store reads with the user. */
export interface Membership {
  readonly team: number;
  readonly role: MemberRole;
}

/** A member of a team, as its page lists them. */
export interface Member {
  readonly user: number;
  readonly email: string;
  readonly role: MemberRole;
}

/** An invitation waiting for its address to accept it. */
export interface Invitation {
  readonly id: number;
  readonly team: number;
  readonly email: string;
  readonly role: MemberRole;
  /** Ms since the epoch. */
  readonly expiresAt: number;
}

/** What a change to a member did: done, nobody of that key in the team, or refused because the team would have no owner. */
export type MemberChange = "changed" | "no such member" | "last owner";

/** What accepting an invitation did: joined (or was a member already), or the invitation is used, withdrawn or expired. */
export type Accepted = { readonly team: number; readonly role: MemberRole; readonly already: boolean } | "gone" | "expired";

/**
 * Where teams, their members and invitations are kept: fw/db's `SqlUsers` answers one
 * (`users.teams()`), in the database beside the users. Every change that could leave a team
 * without an owner is refused in the same transaction that would make it.
 */
export interface TeamStore {
  /** A new team whose one member, `owner`, is its owner. */
  create(name: string, owner: number): Promise<Team>;
  get(team: number): Promise<Team | undefined>;
  /** The user's teams with their role in each, by name. */
  teamsOf(user: number): Promise<readonly (Team & { readonly role: MemberRole })[]>;
  /** The team's members, owners first, then by email. */
  members(team: number): Promise<readonly Member[]>;
  setRole(team: number, user: number, role: MemberRole): Promise<MemberChange>;
  remove(team: number, user: number): Promise<MemberChange>;
  /** Invites `email` (replacing an invitation to it waiting already); the token's SHA-256 is kept, never the token. */
  invite(invitation: { readonly team: number; readonly email: string; readonly role: MemberRole; readonly by: number; readonly tokenHash: string; readonly expiresAt: number }): Promise<Invitation>;
  /** The team's invitations still waiting (not expired at `now`), newest first. */
  invitations(team: number, now: number): Promise<readonly Invitation[]>;
  /** Withdraws an invitation of the team; false when there was none. */
  withdraw(team: number, invitation: number): Promise<boolean>;
  /** The invitation a token's SHA-256 names, with its team's name; undefined when used or withdrawn. */
  invitation(tokenHash: string): Promise<(Invitation & { readonly teamName: string }) | undefined>;
  /** Takes the invitation (once: a second accept finds it gone) and makes `user` a member in one transaction. */
  accept(tokenHash: string, user: number, now: number): Promise<Accepted>;
}

/** The reserved session entry naming the team the user acts in. */
export const TEAM_ENTRY = "_team";

/**
 * The team a user acts in: the session's current team while they are a member of it, else the
 * first of their teams (by key); undefined when they are in none. Never more than they are:
 * a team named by a session of a removed member is not theirs.
 */
export function currentMembership(teams: readonly Membership[] | undefined, session: Session): Membership | undefined {
  if (teams === undefined || teams.length === 0) return undefined;
  const named = session.get(TEAM_ENTRY);
  const chosen = named === undefined ? undefined : teams.find((membership) => String(membership.team) === named);
  return chosen ?? teams[0];
}

/** Whether a text is a member role. */
export function isMemberRole(text: string | undefined): text is MemberRole {
  return text === "owner" || text === "admin" || text === "member";
}
