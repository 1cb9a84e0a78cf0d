import { describe, expect, it } from "vitest";
import { isLocalHost, parseResetFlags, resetVerdict, serverOf } from "../../runtime/db/reset-guard.js";

// Issue 28 item 6: `db reset` emptied a PostgreSQL server's every table without asking because
// NODE_ENV was unset. The rule, as a function of the target, the flags and whether a person is
// at a terminal; spec/db/commands.test.ts runs the command itself on a real server.
const local = (url: string) => ({ postgresUrl: url, description: `PostgreSQL at ${url}`, env: {} });
const none = { force: false, remote: false };

describe("issue 28: when db reset may drop every table", () => {
  it("the embedded database resets freely: no question, no flag, no terminal needed", () => {
    expect(resetVerdict({ postgresUrl: undefined, description: "PGlite at /app/.fw/db", env: {} }, none, false)).toEqual({ go: true });
  });

  it("a server on this machine: asks at a terminal (for the database's name), refuses without one saying how, goes on with --force", () => {
    const target = local("postgres://app:pw@127.0.0.1:5432/shop");
    expect(resetVerdict(target, none, true)).toEqual({ ask: "shop" });
    const refused = resetVerdict(target, none, false);
    expect(refused).toEqual({ refuse: expect.stringContaining("asks first, but there is no terminal to ask in. Nothing was changed. Run it in a terminal to confirm, or pass --force: `db reset --force`.") });
    expect(resetVerdict(target, { force: true, remote: false }, false)).toEqual({ go: true });
  });

  it("a server on another machine is refused without --remote, even with --force; with both it goes on, with --remote alone it still asks", () => {
    const target = local("postgres://app@db.example.com:5432/shop");
    for (const flags of [none, { force: true, remote: false }]) {
      expect(resetVerdict(target, flags, true)).toEqual({
        refuse:
          "fw: db reset drops every table of PostgreSQL at postgres://app@db.example.com:5432/shop, a server on another machine (db.example.com), so it refuses unless told that is meant. " +
          "Nothing was changed. If that really is the database to empty, run `db reset --force --remote`.",
      });
    }
    expect(resetVerdict(target, { force: true, remote: true }, false)).toEqual({ go: true });
    expect(resetVerdict(target, { force: false, remote: true }, true)).toEqual({ ask: "shop" });
    expect(resetVerdict(target, { force: false, remote: true }, false)).toEqual({ refuse: expect.stringContaining("`db reset --force --remote`") });
  });

  it("this machine is no host (pg's socket), a socket directory, localhost, 127.0.0.0/8 or ::1; the host may come from ?host= or PGHOST", () => {
    for (const host of ["", "/var/run/postgresql", "localhost", "LOCALHOST", "db.localhost", "127.0.0.1", "127.1.2.3", "[::1]", "::1"]) expect(isLocalHost(host), host).toBe(true);
    for (const host of ["db.example.com", "10.0.0.5", "128.0.0.1", "localhost.example.com", "[2001:db8::1]", "0.0.0.0"]) expect(isLocalHost(host), host).toBe(false);
    expect(serverOf("postgres:///shop")).toEqual({ host: "the local socket", local: true, database: "shop" });
    expect(serverOf("postgres:///shop", { PGHOST: "db.example.com" })).toMatchObject({ host: "db.example.com", local: false });
    expect(serverOf("postgres://app@/shop?host=/run/postgresql")).toEqual({ host: "/run/postgresql", local: true, database: "shop" });
    expect(serverOf("postgres://app@localhost/shop?host=db.example.com")).toMatchObject({ local: false });
    expect(serverOf("postgres://%2Frun%2Fpostgresql/shop")).toMatchObject({ host: "/run/postgresql", local: true });
    expect(serverOf("postgres://app@127.0.0.1:5432")).toMatchObject({ database: "app" });
    expect(serverOf("not a url at all")).toMatchObject({ local: false });
  });

  it("takes --force and --remote; anything else is a usage error", () => {
    expect(parseResetFlags([])).toEqual({ force: false, remote: false });
    expect(parseResetFlags(["--remote", "--force"])).toEqual({ force: true, remote: true });
    expect(parseResetFlags(["-f"])).toBe('fw: db reset takes --force and --remote, not "-f"\nusage: <app> db reset [--force] [--remote]');
  });
});
