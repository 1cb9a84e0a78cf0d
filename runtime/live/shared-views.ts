/**
 * Shared re-reads (issue 30, item 6): when a topic is published, the sockets of one live page
 * that show the same view mount it again once between them, not once each. A hundred visitors
 * on `/posts` cost one read of the posts per publish, not a hundred.
 *
 * A view is what a page's `mount` may read of its request but for the socket itself: the
 * page, its path and query, `currentUser`, whether it was reached over HTTPS, and the session's
 * entries but its CSRF token (the app's own entries and fw's, so a signed-in session, whose
 * `_user` and `_sid` say whose it is, is a view of its own) and its flash. Headers and the
 * client's address are not part of it: a page whose data depends on them says `shared: false`
 * (docs/guides/live.md, "Topics").
 */
import { openCounts } from "../observe/gauges.js";
import { CSRF_ENTRY, type Request } from "../http/request.js";
import { handOut } from "./hand-out.js";

/** What one shared re-read hands each socket of the view: the new state, or the problem to show. */
export type Reread = { readonly state: unknown } | { readonly problem: string };

/** A socket sharing its view's re-reads. */
export interface ViewMember {
  /** Takes a re-read's outcome (queued behind the socket's own work). */
  reread(outcome: Reread): void;
  /** Logs the failure of a re-read once for the view, and answers the text its sockets show. */
  problem(cause: unknown): string;
}

/** The key of the view a socket's page request shows (see the module's comment). */
export function viewKey(request: Request<unknown>, shown: string): string {
  const session = request.session;
  const entries = [...session.entries].filter(([name]) => name !== CSRF_ENTRY).sort(byName);
  const flashes = [...session.incoming].sort(byName);
  return JSON.stringify([shown, request.currentUser ?? null, request.secure, entries, flashes]);
}

function byName(a: readonly [string, string], b: readonly [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/** The views of one live page, each with the sockets showing it. */
export class SharedViews {
  readonly #views = new Map<string, View>();

  /** `read` mounts the page again for a request (with its handler timeout). */
  constructor(private readonly read: (request: Request<unknown>) => Promise<unknown>) {}

  /**
   * `member`, whose page was mounted with `request`, shares the re-reads of the view `key`
   * (`viewKey(request, …)`): `want` asks for one, `leave` ends its part (its socket closed).
   */
  join(key: string, member: ViewMember, request: Request<unknown>): { want(): void; leave(): void } {
    let view = this.#views.get(key);
    if (view === undefined) {
      view = new View(this.read);
      this.#views.set(key, view);
      openCounts.liveViews++;
    }
    const joined = view;
    joined.members.set(member, request);
    return {
      want: () => joined.want(member),
      leave: () => {
        if (!joined.members.delete(member) || joined.members.size > 0) return;
        if (this.#views.get(key) === joined) {
          this.#views.delete(key);
          openCounts.liveViews--;
        }
      },
    };
  }

  /** How many views have sockets now (tests). */
  get size(): number {
    return this.#views.size;
  }
}

/**
 * One view's sockets and its re-reads: at most one in flight and one waiting. A socket that
 * asks while none has started joins the next one (a publish reaches every socket of the view
 * in one go, so they all join one read, started after the publish); one that asks while a read
 * is in flight waits for the read after it, which starts once it is done (the one in flight may
 * have begun before the write that was published).
 */
class View {
  /** Each socket of the view, with its page's request: a read runs with one of them (they differ in nothing the page reads). */
  readonly members = new Map<ViewMember, Request<unknown>>();
  #waiting = new Set<ViewMember>();
  #reading = false;
  #scheduled = false;

  constructor(private readonly read: (request: Request<unknown>) => Promise<unknown>) {}

  want(member: ViewMember): void {
    this.#waiting.add(member);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#reading || this.#scheduled) return;
    this.#scheduled = true;
    // After the publish has reached every socket of the view (its listeners run in one loop).
    queueMicrotask(() => void this.#start());
  }

  async #start(): Promise<void> {
    this.#scheduled = false;
    const serves = [...this.#waiting].filter((member) => this.members.has(member));
    this.#waiting = new Set();
    const first = serves[0];
    if (first === undefined) return;
    // Until every socket has been handed this read: the next read's state must not overtake it.
    this.#reading = true;
    try {
      let outcome: Reread;
      try {
        outcome = { state: await this.read(this.members.get(first) as Request<unknown>) };
      } catch (cause) {
        outcome = { problem: problemOf(first, cause) };
      }
      await handOut(serves, (member) => {
        if (this.members.has(member)) member.reread(outcome);
      });
    } finally {
      this.#reading = false;
    }
    if (this.#waiting.size > 0) this.#schedule();
  }
}

/** The member's text for a failed read; a report that itself fails must not stop the view. */
function problemOf(member: ViewMember, cause: unknown): string {
  try {
    return member.problem(cause);
  } catch {
    return "Something went wrong.";
  }
}
