import type { Request } from "../http/request.js";
import type { UserFields, Users } from "./users.js";

/**
 * What a back office (fw/admin) needs of a form sign-in to change accounts: the users store, and
 * how to tell every process once a change is written (the write may be part of a transaction
 * that commits later, so the telling is a step of its own). The sign-in's own `setRoles`,
 * `lock`, `unlock` and `logoutEverywhere` write and tell in one call.
 */
export interface AccountControl<U extends UserFields = UserFields> {
  readonly users: Users<U>;
  /** The user's roles changed: their sockets close in every process, and reads made before are not reused. */
  rolesChanged(id: number): void;
  /** Every session of the user ended (locked, signed out everywhere): none counts anywhere from now on, sockets included. */
  sessionsEnded(id: number): void;
  /**
   * The account was locked: its per-user API tokens are revoked (deleted, and forgotten by every
   * process), so a program holding one is refused as the account's sessions are. Unlocking does
   * not bring them back.
   */
  tokensRevoked(id: number): Promise<void>;
  /** The user the request's session signs in, read once per request as the guard reads it; undefined when nobody. */
  currentUser(request: Pick<Request<unknown>, "session"> & Partial<Pick<Request<unknown>, "headers">>): Promise<U | undefined>;
}
