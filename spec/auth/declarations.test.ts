import { describe, expect, it } from "vitest";
import { Guarded, InMemoryUsers, formSignIn, Owned, apiKey } from "../../runtime/auth/index.js";
import {
  Actions,
  assembleTable,
  Create,
  Destroy,
  Edit,
  Forbidden,
  guardRoutes,
  Index,
  Ok,
  Request,
  Route,
  Session,
  Show,
  type HttpRoute,
  type Response,
  type Route as AnyRoute,
} from "../../runtime/index.js";
import { signedInSession } from "../../runtime/auth/session-user.js";

const users = new InMemoryUsers();
// Users 1 to 9 (the hash is never checked here).
for (let i = 1; i <= 9; i++) await users.create(`user${i}@example.com`, "not-a-hash");
const page = Route.get("/page", (request) => Ok(`user ${request.currentUser ?? "nobody"}`));
/** A request whose session signed in user `key` (who exists) at sign-in. */
const signedIn = async (key: string) => new Request({ path: "/page", session: signedInSession(Session.empty, (await users.byId(Number(key)))!) });

async function call(route: AnyRoute, request: Request): Promise<Response> {
  return (route as HttpRoute).handler(request);
}

describe("2.12 Guarded: a plain open class, with Guarded.public", () => {
  it("Guarded.public passes routes unchanged, identifies nobody, carries nothing", () => {
    expect(Guarded.public.through(page)).toBe(page);
    const request = new Request({ session: Session.empty.set("user", "1") });
    expect(Guarded.public.identify(request)).toBe(request);
    expect(Guarded.public.carries).toEqual([]);
    expect(Guarded.public.actions).toBeUndefined();
  });

  it("is open: an app can extend it, and the table accepts the subclass", () => {
    class Everyone extends Guarded {
      constructor() {
        super({ through: (route) => route, identify: (request) => request });
      }
    }
    const table = assembleTable([new Everyone()], [page]);
    expect(table.routes).toEqual([page]);
  });

  it("Owned is a Guarded with covers, independent of its actions", () => {
    const owned = formSignIn({ users }).owned(Actions.only(Edit), Actions.only(Create));
    expect(owned).toBeInstanceOf(Owned);
    expect(owned).toBeInstanceOf(Guarded);
    expect(owned.covers.has(Edit)).toBe(true);
    expect(owned.covers.has(Create)).toBe(false);
    expect(owned.actions?.has(Create)).toBe(true);
  });
});

describe("5.1 The form sign-in: its routes, carried once by every declaration", () => {
  it("mounts GET|POST /login, POST /logout and GET|POST /signup, relative to the mount", () => {
    const paths = (routes: readonly AnyRoute[]) => routes.map((r) => `${r.case === "http" ? r.method : "WS"} ${r.path.text}`);
    expect(paths(formSignIn({ users }).routes)).toEqual(["GET /login", "POST /login", "POST /logout", "GET /signup", "POST /signup"]);
    expect(paths(formSignIn({ users, mount: "/account/" }).routes)).toEqual(["GET /account/login", "POST /account/login", "POST /account/logout", "GET /account/signup", "POST /account/signup"]);
    expect(paths(formSignIn({ users, signUp: false }).routes)).toEqual(["GET /login", "POST /login", "POST /logout"]);
    expect(() => formSignIn({ users, mount: "account" })).toThrow(/must be a path starting with "\/"/);
  });

  it("every declaration of one sign-in carries the same routes, so the table mounts them once", () => {
    const auth = formSignIn({ users });
    const table = assembleTable([auth.guarded(), auth.guarded(Actions.only(Create)), auth.owned(Actions.all)], [page]);
    expect(table.routes.length).toBe(1 + 5);
  });

  it("a guarded page: nobody → 303 to login with next (GET only); a user → currentUser named", async () => {
    const auth = formSignIn({ users, mount: "/account" });
    const guarded = auth.guarded().through(page);
    const refused = await call(guarded, new Request({ path: "/page", query: "a=1" }));
    expect(refused.status).toBe(303);
    expect(refused.header("location")).toBe("/account/login?next=%2Fpage%3Fa%3D1");
    const posted = await call(auth.guarded().through(Route.post("/page", () => Ok("x"))), new Request({ method: "POST", path: "/page" }));
    expect(posted.header("location")).toBe("/account/login");
    const served = await call(guarded, await signedIn("7"));
    expect(served.body).toEqual({ type: "text", text: "user 7" });
  });

  it("a guarded socket needs a user at the handshake; an API route, which has no session, is refused with 403", async () => {
    const auth = formSignIn({ users });
    const socket = auth.guarded().through(Route.ws("/live", { message: () => {} }));
    expect(socket.case === "ws" && socket.requiresUser).toBe(true);
    const api = auth.guarded().through(Route.api({ method: "GET", path: "/api/x", handler: () => Ok("x") }));
    const request = await signedIn("7");
    await expect(async () => call(api, request)).rejects.toThrow(Forbidden);
  });

  it("identify names the session's user, and leaves a request naming nobody unchanged (so identifies compose)", async () => {
    const auth = formSignIn({ users });
    expect((await auth.identify(await signedIn("3"))).currentUser).toBe("3");
    const nobody = new Request();
    expect(await auth.identify(nobody)).toBe(nobody);
    const keyed = new Request({ headers: { authorization: "Bearer k-123" } });
    const table = assembleTable([apiKey({ keys: new Map([["k-123", 9]]) }), auth.guarded()], []);
    expect((await table.identify(keyed)).currentUser).toBe("9");
  });

  it("identify takes back the user it named once the session no longer counts: a socket's page asking again reads nobody (issue 28, item 2)", async () => {
    const auth = formSignIn({ users });
    const named = await auth.identify(await signedIn("4"));
    expect(named.currentUser).toBe("4");
    expect((await auth.identify(named)).currentUser).toBe("4");
    await auth.logoutEverywhere(4);
    expect((await auth.identify(named)).currentUser).toBeUndefined();
    // A user another guard named is not this sign-in's to take back.
    const keyed = new Request({ session: named.session, currentUser: "9" });
    expect((await auth.identify(keyed)).currentUser).toBe("9");
  });

  it("a session entry the app sets cannot sign anyone in: `_user` is reserved", async () => {
    expect(() => Session.empty.set("_user", "1")).toThrow(/reserved/);
    expect(await formSignIn({ users }).userOf({ session: Session.empty.set("user", "1") })).toBeUndefined();
  });

  it("a page's declaration is not read for its actions (spec 2.12.4): a page's routes, which have no role, are all wrapped", () => {
    const auth = formSignIn({ users });
    const page = Route.get("/vault", () => Ok("v"));
    const socket = Route.ws("/vault/live", { message() {} });
    const wrapped = guardRoutes(auth.guarded(Actions.only(Destroy)), [page, socket]);
    expect(wrapped.map((route) => route.guard)).toEqual(["formSignIn", "formSignIn"]);
  });

  it("a model's declaration wraps only the roles its actions name", () => {
    const auth = formSignIn({ users });
    const index = { ...Route.get("/memos", () => Ok("i")), role: Index };
    const show = { ...Route.get("/memos/:id", () => Ok("s")), role: Show };
    const [a, b] = guardRoutes(auth.guarded(Actions.only(Show)), [index, show]);
    expect(a).toBe(index);
    expect(b?.guard).toBe("formSignIn");
  });
});
