import type { Request } from "../http/request.js";
import type { WsConnection, WsListener } from "../routing/ws-listener.js";
import { openSocketsOf, watchOpenedSockets } from "../ws/open-sockets.js";
import { endsClaim, endsSessions, type Ending, type SessionEnds } from "./session-ends.js";
import { claimOf } from "./session-user.js";

/** The close code a socket of a signed-out session gets (1008, policy violation). */
export const SIGNED_OUT_CODE = 1008;
/** The close code a socket gets when its session could not be checked (1011: the client may connect again). */
const UNCHECKED_CODE = 1011;

/**
 * Every open socket the form sign-in named a user on, guarded or public (a public page's live
 * socket carries its visitor's user too): when a session ends, in this process or another
 * (`SessionEnds`), its sockets here close with 1008 "signed out", so none goes on as the user
 * of a session that no longer counts. The open sockets are the core's (`openSocketsOf`): a
 * socket is reached through the request this sign-in's `identify` named, nothing else is kept.
 */
export class LiveSockets {
  /** The requests `identify` named a user on, with the generation of endings before it asked the store. */
  readonly #named = new WeakMap<Request, number>();
  /** Guarded sockets, which check their session themselves (`track`). */
  readonly #checkedByGuard = new WeakSet<WsConnection>();

  constructor(
    private readonly ends: SessionEnds,
    /** Asks the users store now whether a request's session still counts. */
    private readonly stillSignedIn: (request: Request) => Promise<boolean>,
  ) {
    ends.listen((ending) => this.close(ending));
    watchOpenedSockets((connection) => this.opened(connection));
  }

  /** `identify` named the user on `request`, having asked the store when `generation` endings had been heard. */
  named(request: Request, generation: number): void {
    if (!this.#named.has(request)) this.#named.set(request, generation);
  }

  /**
   * A guarded socket's `listener`: when a session ending was heard since the handshake asked
   * the users store (or the handshake's user was not named by this sign-in), `stillSignedIn` is
   * asked once the socket opened (a sign-out between the handshake and now must not be missed);
   * a socket that fails it is closed (1008) and the app's listener hears no message from it.
   * Otherwise what the handshake read still holds: the socket costs one users-store read, its
   * handshake's (issue 30, item 7). An ending heard from now on closes it (`close`): it is
   * among the open sockets before its `open` runs.
   *
   * The app's `open` runs at once, not after that check: the check is a users-store round trip
   * (a database query with fw/db), and a client that saw its handshake answered must already be
   * in the app's rooms — a message broadcast after its `open` event must reach it. The check
   * only covers a sign-out that lands in between, and closes such a socket within one round trip.
   */
  track(listener: WsListener): WsListener {
    const admitted = new WeakSet<WsConnection>();
    const tracked: WsListener = {
      open: async (connection) => {
        this.#checkedByGuard.add(connection);
        admitted.add(connection);
        const unchanged = this.#named.get(connection.request) === this.ends.generation;
        const checked = unchanged
          ? undefined
          : this.stillSignedIn(connection.request).then((signedIn) => {
              if (signedIn) return;
              admitted.delete(connection);
              connection.close(SIGNED_OUT_CODE, "signed out");
            });
        await listener.open?.(connection);
        // The socket's own messages wait (its inbox runs one job at a time) until it passed.
        await checked;
      },
      message: (connection, text) => (admitted.has(connection) ? listener.message(connection, text) : undefined),
      ...(listener.close === undefined ? {} : { close: (connection: WsConnection) => listener.close?.(connection) }),
    };
    return tracked;
  }

  /** Closes this process's sockets of the sessions `ending` ends. */
  private close(ending: Ending): void {
    for (const connection of openSocketsOf(ending.user)) {
      if (!this.#named.has(connection.request)) continue;
      const claim = claimOf(connection.request.session);
      if (claim !== undefined && endsClaim(ending, claim)) connection.close(SIGNED_OUT_CODE, endsSessions(ending) ? "signed out" : "what you may reach changed");
    }
  }

  /**
   * A socket opened as a user this sign-in named. When a session ending was heard since its
   * handshake asked the store (it may have missed that socket, not yet open), its session is
   * asked again: one that no longer counts is closed (1008), as is one the store could not
   * answer for (1011, so a client connects again and is asked afresh). Guarded sockets check
   * themselves (`track`).
   */
  private opened(connection: WsConnection): void {
    const asked = this.#named.get(connection.request);
    if (asked === undefined || asked === this.ends.generation || this.#checkedByGuard.has(connection)) return;
    this.stillSignedIn(connection.request).then(
      (signedIn) => signedIn || connection.close(SIGNED_OUT_CODE, "signed out"),
      () => connection.close(UNCHECKED_CODE, "the sign-in could not be checked"),
    );
  }
}
