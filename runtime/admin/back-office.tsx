import type { AccountControl } from "../auth/account-control.js";
import type { FormSignIn, RoleOf } from "../auth/form-sign-in.js";
import type { UserFields } from "../auth/users.js";
import { NotFound } from "../http/failure.js";
import { copyRequest, type Request } from "../http/request.js";
import { Ok, Response } from "../http/response.js";
import type { Html } from "../html/node.js";
import { Actions, Index, Show } from "../resource/actions.js";
import type { Companion } from "../resource/derives.js";
import type { ModelSpec } from "../resource/model.js";
import { Relations } from "../resource/relations.js";
import { decodeParams } from "../routing/from-path.js";
import { Origin, Route, type HttpRoute } from "../routing/route.js";
import { actingAs } from "./actor.js";
import { USERS_LOGGED, AuditSection } from "./audit-section.js";
import { InMemoryAuditLog, type AuditLog } from "./audit-log.js";
import { modelSection, type AdminModel, type AdminSection } from "./model-section.js";
import { UsersRows, USERS_SPEC } from "./users-model.js";
import { TeamsSection, TEAMS_LOGGED } from "./teams-section.js";
import { UsersSection } from "./users-section.js";

/** Where the back office is mounted when its declaration says nothing. */
export const DEFAULT_AT = "/admin";
/** The role that opens it when its declaration says nothing. */
export const DEFAULT_ROLE = "admin";

/** What an app declares of its back office (`backOffice(auth, { … })`). Read by the build: write it inline, as literals. */
export interface BackOfficeOptions<U extends UserFields> {
  /**
   * The models it shows, by their companions (`[Post, Comment]`, each imported from its file):
   * every row of each, whoever owns it, listed, filtered, shown, edited and deleted. Any
   * model's companion fits the type (its `derivations`); the build checks each is a model's.
   */
  readonly models: readonly Pick<Companion<unknown>, "derivations">[];
  /** The role that opens it (one of the app's, from its user type): `"admin"` when left out. */
  readonly role?: RoleOf<U>;
  /** Where it is mounted: `"/admin"` when left out. */
  readonly at?: string;
}

/**
 * What the generated table hands the back office (`admin.routes({ … })`): the app's roles as the
 * build read them from its user type (the only role names its forms take), each model's spec
 * and every one of its rows (`AllRows<M>`), where the audit log is kept (fw/db's `SqlAuditLog`
 * on the app's database, else in memory), and the declaration's file.
 */
export interface BackOfficeParts {
  readonly roles: readonly string[];
  readonly models: readonly AdminModel[];
  /** Where the audit log is kept: in memory when absent (an app without a database). */
  readonly audit?: AuditLog;
  readonly source: string;
}

/**
 * An admin back office (issue 41): derived pages under one prefix, for users holding one role.
 * Declare it once, in a module of the app (`src/admin.ts`):
 *
 *     export const admin = backOffice(auth, { models: [Post, Comment, Note] });
 *
 * The build finds the declaration and mounts it: a page per model (every row, past the model's
 * policy: the `AllRows<M>` escape hatch), the users (search, roles, lock, sign out everywhere)
 * and the audit log of every admin write. Anyone without the role, signed in or not, gets a 404
 * from every page and form of it.
 */
export function backOffice<U extends UserFields, S extends string = never>(auth: FormSignIn<U, S>, options: BackOfficeOptions<U>): BackOffice<U, S> {
  return new BackOffice(auth, options);
}

/** `S`: the app's API token scopes (`formSignIn`'s `scopes`), carried so any form sign-in fits. */
export class BackOffice<U extends UserFields = UserFields, S extends string = never> {
  /** Where it is mounted (`/admin`). */
  readonly at: string;
  /** The role that opens it. */
  readonly role: string;

  constructor(
    private readonly auth: FormSignIn<U, S>,
    options: BackOfficeOptions<U>,
  ) {
    const at = options.at ?? DEFAULT_AT;
    if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(at)) throw new Error(`backOffice: at ${JSON.stringify(at)} must be a path of literal segments, like "/admin".`);
    this.at = at;
    this.role = options.role ?? DEFAULT_ROLE;
  }

  /**
   * @internal The back office's routes, from what the generated table read of the app: its
   * sections (one per model, the users, the teams when the sign-in keeps them, the audit
   * log), each page guarded by the role (a 404 for anyone
   * else, before its path's parameters are read), run as the admin's for the audit log, framed
   * by the back office's navigation, all under `at`.
   */
  routes(parts: BackOfficeParts): Route[] {
    const control = this.auth.accountControl();
    const audit = parts.audit ?? new InMemoryAuditLog();
    const relations = new Relations();
    // The users first: a row's owner shows as a link to its user's page.
    relations.register({ model: USERS_SPEC as ModelSpec<unknown>, store: new UsersRows(control.users), actions: Actions.only(Index, Show) });
    const models = parts.models.map((model) => modelSection(model, audit, relations, parts.source));
    const owned = parts.models.map((model) => model.spec as ModelSpec<unknown>).filter((spec) => spec.owner !== undefined);
    // The teams when the sign-in keeps them (formSignIn({ teams: true })).
    const teams = this.auth.teams === undefined ? undefined : new TeamsSection(this.auth.teams, control, audit, parts.source);
    const logged = [...parts.models.map((model) => ({ name: model.spec.name, path: model.spec.path })), USERS_LOGGED, ...(teams === undefined ? [] : [TEAMS_LOGGED])];
    const sections: AdminSection[] = [
      ...models,
      new UsersSection(control, parts.roles, this.role, audit, owned, parts.source),
      ...(teams === undefined ? [] : [teams]),
      new AuditSection(audit, logged, parts.source),
    ];
    const home = Route.http({ method: "GET", path: "/", handler: (request) => this.home(request, sections), origin: Origin.Resource, source: parts.source });
    const guard = this.auth.role(this.role as RoleOf<U>);
    const routes = [home, ...sections.flatMap((section) => section.routes())].map((route) => guard.through(this.acting(route, control, sections)));
    return Route.under(this.at, routes);
  }

  /**
   * A route as the back office serves it: its path's parameters read only after the role guard
   * let the request in (a malformed key probed by someone else is their 404, not a 400), the
   * handler run as the signed-in admin's (the audit log's "who"), its page framed by the navigation.
   */
  private acting(route: HttpRoute, control: AccountControl<U>, sections: readonly AdminSection[]): HttpRoute {
    const { params, handler, ...rest } = route;
    return {
      ...rest,
      handler: async (request) => {
        const user = await control.currentUser(request);
        // The role guard runs first and let the admin in: nobody else gets here.
        if (user === undefined) throw new NotFound();
        const decoded = params === undefined ? request : copyRequest(request, { params: decodeParams(request.params as Readonly<Record<string, string>>, params) });
        const answer = await actingAs({ id: user.id, email: user.email }, () => handler(decoded));
        return framed(answer, navigation(request, sections));
      },
    };
  }

  /** The front page: each section with how many rows it has. */
  private async home(request: Request, sections: readonly AdminSection[]): Promise<Response> {
    const counts = await Promise.all(sections.map((section) => section.count?.(request)));
    return Ok(
      <>
        <title>Back office</title>
        <h1>Back office</h1>
        <ul class="fw-admin-sections">
          {sections.map((section, i) => (
            <li>
              <a href={request.href(section.path)}>{section.title}</a>
              {counts[i] === undefined ? null : ` (${(counts[i] as number).toLocaleString("en-US")})`}
            </li>
          ))}
        </ul>
      </>,
    );
  }
}

/** The back office's navigation: its front page and each section, the current one marked. */
function navigation(request: Request, sections: readonly AdminSection[]): Html {
  const here = request.path;
  return (
    <nav class="fw-admin-nav" aria-label="Back office">
      <a href={request.href("/")}>Back office</a>
      {sections.map((section) => {
        const href = request.href(section.path);
        const current = here === href || here.startsWith(`${href}/`);
        return (
          <>
            {" · "}
            <a href={href} aria-current={current ? "page" : undefined}>{section.title}</a>
          </>
        );
      })}
    </nav>
  );
}

/** A page of the back office with its navigation above it; any other answer as it is. */
function framed(answer: Response, nav: Html): Response {
  if (answer.body.type !== "html") return answer;
  return new Response(answer.status, answer.headers, { type: "html", html: <>{nav}{answer.body.html}</> }, answer.session);
}
