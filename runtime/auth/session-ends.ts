import { broadcastNamed, registerRoom, type LocalRoom } from "../ws/fan-out.js";
import type { SessionClaim } from "./session-user.js";

/**
 * The room session endings travel on, as a named room of the core's fan-out: every process of
 * the app hears them (on PostgreSQL through LISTEN/NOTIFY), this one at once.
 */
export const SESSION_ENDS_ROOM = "fw.auth:session-ends";

/** Sessions of one user that no longer count. */
export type Ending =
  /** One session, signed out. */
  | { readonly user: string; readonly session: string }
  /** Every session but those signed in at this epoch (signed out everywhere, a new password). */
  | { readonly user: string; readonly epoch: string }
  /** Every session: the user is gone. */
  | { readonly user: string }
  /**
   * The sessions go on, but what the user may reach changed (a role revoked, a team left): their
   * sockets close, to be asked again, and reads made before are not reused (issue 41).
   */
  | { readonly user: string; readonly access: true };

/** Whether `ending` ends the session `claim` describes. */
export function endsClaim(ending: Ending, claim: SessionClaim): boolean {
  if (String(claim.id) !== ending.user) return false;
  if ("session" in ending) return claim.sessionId === ending.session;
  if ("epoch" in ending) return claim.epoch !== ending.epoch;
  return true;
}

/** Whether `ending` ends sessions, or only changes what the user may reach (their sockets close all the same). */
export function endsSessions(ending: Ending): boolean {
  return !("access" in ending);
}

/**
 * Tells every process of the app, this one included, when sessions end, and counts the endings
 * this process heard (`generation`): a users-store read made before the latest one is not
 * reused. Made once per `formSignIn`; it hears for as long as the process runs.
 */
export class SessionEnds implements LocalRoom {
  #generation = 0;
  readonly #listeners: ((ending: Ending) => void)[] = [];

  constructor() {
    registerRoom(SESSION_ENDS_ROOM, this);
  }

  /** How many endings this process has heard (from here or elsewhere). */
  get generation(): number {
    return this.#generation;
  }

  /** Calls `listener` with every ending heard from now on. */
  listen(listener: (ending: Ending) => void): void {
    this.#listeners.push(listener);
  }

  /** Tells this process (at once) and the others (through the app's fan-out) that sessions ended. Call it once the store says so. */
  announce(ending: Ending): void {
    broadcastNamed(SESSION_ENDS_ROOM, JSON.stringify(wire(ending)), undefined);
  }

  /** @internal An ending, from here or from another process. */
  deliverHere(text: string): void {
    const ending = endingOf(text);
    if (ending === undefined) return;
    this.#generation++;
    for (const listener of this.#listeners) listener(ending);
  }
}

function wire(ending: Ending): Record<string, string> {
  if ("session" in ending) return { u: ending.user, s: ending.session };
  if ("epoch" in ending) return { u: ending.user, e: ending.epoch };
  if ("access" in ending) return { u: ending.user, a: "1" };
  return { u: ending.user };
}

/** The ending a message carries; undefined for anything else (someone else's message in the room). */
function endingOf(text: string): Ending | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { u, s, e, a } = parsed as Record<string, unknown>;
  if (typeof u !== "string") return undefined;
  if (typeof s === "string") return { user: u, session: s };
  if (typeof e === "string") return { user: u, epoch: e };
  if (a === "1") return { user: u, access: true };
  return s === undefined && e === undefined && a === undefined ? { user: u } : undefined;
}
