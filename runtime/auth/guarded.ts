import type { Request } from "../http/request.js";
import type { GuardDeclaration } from "../routing/assemble.js";
import type { Route } from "../routing/route.js";
import { RouteTable, type Identify } from "../routing/route-table.js";
import type { Actions } from "../resource/actions.js";

/** What a `Guarded` is made of (spec 2.12). */
export interface GuardedInit {
  /** Wraps a covered route: a browser page refuses nobody with a 303 to sign-in, a socket needs a user. */
  readonly through: (route: Route) => Route;
  /** Names the current user on a request; never refuses one, and leaves it unchanged when it knows nobody. */
  readonly identify: Identify;
  /** The guard's own routes (login, logout); the table mounts equal ones once. */
  readonly carries?: RouteTable | readonly Route[];
  /** The derived roles a model's declaration covers (all when absent); not read for a page. */
  readonly actions?: Actions;
  /**
   * Who is looking, answered at once, for display only (an owner's Edit link on a public page);
   * give it when `identify` answers later. Absent: `identify` is used when it answers at once.
   */
  readonly viewer?: (request: Request) => string | undefined;
  /**
   * Whether the request's viewer would get past `through`, for display only (a model's derived
   * pages show a covered role's controls only to them): `auth.role(…)` asks for the roles.
   * Absent: the controls are shown, and the page refuses whoever it refuses.
   */
  readonly admits?: (request: Request) => boolean | Promise<boolean>;
}

const unchanged = <T>(value: T): T => value;

/**
 * A declaration, made beside a model or a page, of which routes need a signed-in user
 * (spec 2.12): a plain open class, not a case class, with no default instance. A page exports
 * one as `guarded`; a model names one in its options (`guarded`, or `owned` for `Owned`). Any
 * sign-in mechanism (the form sign-in, an API key, single sign-on) produces one of these.
 */
export class Guarded implements GuardDeclaration {
  readonly through: (route: Route) => Route;
  readonly identify: Identify;
  readonly carries: readonly Route[];
  readonly actions: Actions | undefined;
  readonly viewer: ((request: Request) => string | undefined) | undefined;
  readonly admits: ((request: Request) => boolean | Promise<boolean>) | undefined;

  constructor(init: GuardedInit) {
    this.through = init.through;
    this.identify = init.identify;
    const carries = init.carries ?? [];
    this.carries = carries instanceof RouteTable ? carries.routes : [...carries];
    this.actions = init.actions;
    this.viewer = init.viewer;
    this.admits = init.admits;
  }

  /**
   * The declaration that knows nobody: routes pass unchanged, `identify` returns the request as
   * it is, nothing is carried. Write it where the auth module makes a declaration mandatory and
   * a page or model is open to everyone.
   */
  static readonly public: Guarded = new Guarded({ through: unchanged, identify: (request: Request) => unchanged(request) });
}
