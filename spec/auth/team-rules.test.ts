// Issue 41, item 4: the rules behind teams, without a server: which team a session acts in,
// what a member clause reaches, and the declarations a policy refuses at once.
import { describe, expect, it } from "vitest";
import { formSignIn, InMemoryUsers } from "../../runtime/auth/index.js";
import { currentMembership, TEAM_ENTRY } from "../../runtime/auth/teams.js";
import { Session } from "../../runtime/http/session.js";
import { withReserved } from "../../runtime/http/session.js";
import type { Request } from "../../runtime/http/request.js";
import { outranks, PolicyAccess, reachOf, type Clause, type PolicyDeclaration } from "../../runtime/resource/policy.js";
import type { Draft, Store } from "../../runtime/resource/store.js";

const member: Clause = { who: { kind: "member", atLeast: "member" }, rows: { kind: "team" } };
const admins: Clause = { who: { kind: "member", atLeast: "admin" }, rows: { kind: "team" } };

describe("41.4 The current team", () => {
  const teams = [
    { team: 3, role: "member" as const },
    { team: 7, role: "owner" as const },
  ];
  it("is the session's team while the user is a member of it, else their first; none when they are in none", () => {
    expect(currentMembership(teams, withReserved(Session.empty, TEAM_ENTRY, "7"))).toEqual({ team: 7, role: "owner" });
    expect(currentMembership(teams, Session.empty)).toEqual({ team: 3, role: "member" });
    // A team the user is not in (removed, or never): their first instead, never the named one.
    expect(currentMembership(teams, withReserved(Session.empty, TEAM_ENTRY, "9"))).toEqual({ team: 3, role: "member" });
    expect(currentMembership([], withReserved(Session.empty, TEAM_ENTRY, "7"))).toBeUndefined();
    expect(currentMembership(undefined, Session.empty)).toBeUndefined();
  });
});

describe("41.4 Member clauses", () => {
  it("an owner is an admin is a member", () => {
    expect([outranks("owner", "admin"), outranks("admin", "admin"), outranks("member", "admin"), outranks("member", "member")]).toEqual([true, true, false, true]);
  });

  it("reach the rows of the viewer's current team, by their role in it; nothing without a team", () => {
    const viewer = { key: "5", roles: [], team: { key: 7, role: "member" as const } };
    expect(reachOf([member], viewer, undefined, "team")).toEqual({ kind: "some", anyOf: [{ field: "team", equals: 7 }] });
    expect(reachOf([admins], viewer, undefined, "team")).toEqual({ kind: "none" });
    expect(reachOf([admins], { ...viewer, team: { key: 7, role: "owner" } }, undefined, "team")).toEqual({ kind: "some", anyOf: [{ field: "team", equals: 7 }] });
    expect(reachOf([member], { key: "5", roles: [] }, undefined, "team")).toEqual({ kind: "none" });
    expect(reachOf([member], { key: undefined, roles: [] }, undefined, "team")).toEqual({ kind: "none" });
  });
});

describe("41.4 Declarations refused at once", () => {
  it("can.member in a policy naming no team field, a team field on a sign-in without teams, a member role that is none", () => {
    const auth = formSignIn({ users: new InMemoryUsers() });
    expect(() => auth.policy<{ id: number }>({}, (can) => ({ read: can.member, create: can.signedIn, update: can.signedIn, destroy: can.signedIn }))).toThrow(/says can\.member, but the policy names no team field/);
    expect(() => auth.policy<{ id: number; team: number }>({ team: "team" }, (can) => ({ read: can.member, create: can.member, update: can.member, destroy: can.member }))).toThrow(/this sign-in keeps no teams: formSignIn\(\{ users, mailer, teams: true \}\)/);
    expect(() => auth.policy<{ id: number }>({}, (can) => ({ read: can.memberAs("boss" as "admin"), create: can.signedIn, update: can.signedIn, destroy: can.signedIn }))).toThrow(/a member role is "owner", "admin" or "member"/);
  });

  it("teams: true needs a users store that keeps teams, and the mailer", () => {
    expect(() => formSignIn({ users: new InMemoryUsers(), teams: true })).toThrow(/needs a users store that keeps teams: fw\/db's SqlUsers/);
  });
});

describe("41.4 The store a new team row goes into", () => {
  // A store that keeps what it was asked, to see what the team's stamp passes on: the wrapper's
  // job is to change the insert and nothing else (a narrowing stays in the query, a version check stays).
  interface Row { id: number; team: number; title: string }
  function keeping(calls: unknown[][], name = "whole"): Store<Row> {
    return {
      list: async () => ({ rows: [], total: 0 }),
      count: async () => 0,
      search: async () => ({ hits: [], total: 0 }),
      get: async () => undefined,
      insert: async (draft) => (calls.push([name, "insert", draft]), { id: 1, ...(draft as Omit<Row, "id">) }),
      update: async (key, draft, expected) => (calls.push([name, "update", key, draft, expected]), undefined),
      delete: async () => false,
      where: (filter) => (calls.push([name, "where", filter]), keeping(calls, "narrowed")),
    };
  }

  it("is stamped with the viewer's team, and keeps the wrapped store's version check and its narrowing in the query", async () => {
    const calls: unknown[][] = [];
    const viewer = { key: "5", roles: [], team: { key: 7, role: "member" as const } };
    // Only what `creating` reads of a declaration: the rules, the team field, who is looking.
    const declaration = { policy: { read: [member], create: [member], update: [member], destroy: [member] }, team: "team", who: () => viewer } as unknown as PolicyDeclaration;
    const store = await new PolicyAccess<Row>(keeping(calls), declaration, "draft").creating({} as Request);
    await store.insert({ title: "a" } as Draft<Row>);
    await store.update(1, { title: "b" } as Draft<Row>, 3);
    const narrowed = store.where?.({ anyOf: [{ field: "title", equals: "b" }] });
    await narrowed?.insert({ title: "c" } as Draft<Row>);
    expect(calls).toEqual([
      ["whole", "insert", { title: "a", team: 7 }],
      ["whole", "update", 1, { title: "b" }, 3],
      ["whole", "where", { anyOf: [{ field: "title", equals: "b" }] }],
      ["narrowed", "insert", { title: "c", team: 7 }],
    ]);
  });
});
