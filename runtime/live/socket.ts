/**
 * A live page's socket (`WS /fw/live/<id>`, live protocol "The socket"): per connection, the page
 * mounted from `?path=`, its state, the tree last sent, the template shapes the client has; each
 * event (CSRF-checked against the session read at the handshake) runs its handler, re-renders
 * and sends only what changed. Publishes on the page's topics refresh it the same way.
 */
import { openCounts } from "../observe/gauges.js";
import { traced } from "../observe/tracing.js";
import { timingSafeEqual } from "node:crypto";
import { asFailure } from "../http/failure.js";
import { storeFailure } from "../server/store-failure.js";
import { splitPath, splitTarget } from "../http/path.js";
import { decodeQuery } from "../http/query-params.js";
import { CSRF_ENTRY, Request, withQueryParams } from "../http/request.js";
import { decodeParams } from "../routing/from-path.js";
import { Matcher } from "../routing/matcher.js";
import { Route } from "../routing/route.js";
import type { WsConnection, WsListener } from "../routing/ws-listener.js";
import type { Child } from "../html/node.js";
import { admitSocket } from "./address-bound.js";
import { contextOf, handlerOf, payloadOf } from "./events.js";
import type { LivePage } from "./page.js";
import { withMountCapabilities, type LiveMount } from "./mount.js";
import { DEFAULT_LIVE_HANDLER_TIMEOUT_MS, settled } from "./settle.js";
import { SharedViews, viewKey, type Reread, type ViewMember } from "./shared-views.js";
import { subscribe } from "./topics.js";
import { diffTree, knownShapes, toTree, treeLength, type Node } from "./tree.js";
import { liveView, pathAndQuery } from "./view.js";

/** A render larger than this (HTML characters) is refused: the state stays as it was (live protocol, "Bounds"). */
export const MAX_RENDER = 1024 * 1024;
/** At most this many `[name, value]` pairs in one event. */
export const MAX_PAIRS = 64;

/** Close codes (RFC 6455 7.4.1). */
const UNSUPPORTED = 1003;
const POLICY = 1008;
const INTERNAL = 1011;

type Pairs = readonly (readonly [string, string])[];

interface EventMessage {
  readonly n: number;
  readonly e: string;
  readonly c: string | undefined;
  readonly v: unknown;
}

/**
 * Whether a page's sockets share their re-reads (`LiveSpec.shared`): never with a `refresh` of
 * its own (it hears each message with its own state); by default when it has no events.
 */
// biome-ignore lint/suspicious/noExplicitAny: a page of any state
export function sharesRereads(page: LivePage<any, any, any, any>): boolean {
  const spec = page.spec;
  if (spec.refresh !== undefined) return false;
  return spec.shared ?? Object.keys(spec.events ?? {}).length === 0;
}

/**
 * The listener shared by every connection of one page; each connection's page lives in a
 * `LiveSession`. At most `perAddress` live sockets (of every page) per client address are
 * mounted; one more is closed 1008 before its page mounts.
 */
// biome-ignore lint/suspicious/noExplicitAny: a page of any state
export function liveListener(page: LivePage<any, any, any, any>, mount: LiveMount<unknown>, perAddress: number): WsListener {
  const sessions = new WeakMap<WsConnection, LiveSession>();
  const pattern = new Matcher([Route.get(mount.path, () => {
    throw new Error("never called");
  })]);
  const timeout = page.spec.handlerTimeoutMs ?? DEFAULT_LIVE_HANDLER_TIMEOUT_MS;
  const views = sharesRereads(page)
    ? new SharedViews((request) =>
        traced(`live refresh ${mount.source}`, { attributes: { "fw.live.page": mount.source, "fw.live.shared": true } }, () =>
          settled(withMountCapabilities(mount, request, (capabilities) => page.spec.mount(request, capabilities)), timeout, "refresh"),
        ),
      )
    : undefined;
  return {
    open: async (connection) => {
      const release = admitSocket(connection.request.clientAddress, perAddress);
      if (release === undefined) {
        connection.close(POLICY, `too many live pages open from your address (at most ${perAddress})`);
        return;
      }
      const session = new LiveSession(page, mount, connection, views, release);
      sessions.set(connection, session);
      openCounts.liveSockets++;
      await session.run(() => session.mount(pattern));
    },
    message: (connection, text) => sessions.get(connection)?.run(() => session(connection).event(text)),
    close: (connection) => {
      const closing = sessions.get(connection);
      if (closing === undefined) return;
      closing.end();
      sessions.delete(connection);
      openCounts.liveSockets--;
    },
  };

  function session(connection: WsConnection): LiveSession {
    return sessions.get(connection) as LiveSession;
  }
}

class LiveSession implements ViewMember {
  state: unknown = undefined;
  tree: Node | undefined = undefined;
  request: Request<unknown> | undefined = undefined;
  shown = "";
  readonly sentShapes = new Set<number>();
  readonly token: string | undefined;
  #queue: Promise<void> = Promise.resolve();
  #ended = false;
  #unsubscribe: (() => void)[] = [];
  #topics: readonly string[] = [];
  /** A mount-again refresh waits in the queue (see `published`). */
  #remountQueued = false;
  /** The view whose re-reads this socket shares, once mounted (pages that share them). */
  #view: { want(): void; leave(): void } | undefined;

  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: a page of any state
    readonly page: LivePage<any, any, any, any>,
    readonly mountInfo: LiveMount<unknown>,
    readonly connection: WsConnection,
    private readonly views: SharedViews | undefined,
    /** Counts the socket out of its address's bound. */
    private readonly release: () => void,
  ) {
    this.token = connection.request.session.get(CSRF_ENTRY);
  }

  /** Runs `job` after every job before it (events and refreshes, one at a time, in order). */
  run(job: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(() => (this.#ended ? undefined : job()));
    // The chain goes on whatever a job did; the job's own failure reaches the caller.
    this.#queue = next.catch(() => undefined);
    return next;
  }

  end(): void {
    this.#ended = true;
    for (const leave of this.#unsubscribe) leave();
    this.#unsubscribe = [];
    this.#view?.leave();
    this.#view = undefined;
    this.release();
  }

  /** The page's request from `?path=`, mounted and sent whole. */
  async mount(pattern: Matcher): Promise<void> {
    const request = this.pageRequest(pattern);
    if (request === undefined) return;
    this.request = request;
    let state: unknown;
    try {
      state = await this.settled(withMountCapabilities(this.mountInfo, request, (capabilities) => this.page.spec.mount(request, capabilities)), "mount");
    } catch (cause) {
      this.refuseMount(cause);
      return;
    }
    let rendered: { tree: Node; message: string } | undefined;
    let threw = false;
    try {
      rendered = this.render(state, 0);
    } catch (cause) {
      threw = true;
      await this.error(`rendering ${this.mountInfo.source} (${this.shown}) threw`, cause, 0);
    }
    if (rendered === undefined) {
      if (!threw) await this.say(`The page rendered more than ${MAX_RENDER / 1024 / 1024} MiB of HTML.`, 0);
      this.connection.close(INTERNAL, "the page could not be rendered");
      return;
    }
    this.state = state;
    this.subscribe();
    if (this.views !== undefined && !this.#ended) this.#view = this.views.join(viewKey(request, this.shown), this, request);
    await this.send(rendered.message);
  }

  private refuseMount(cause: unknown): void {
    const failure = asFailure(cause);
    if (failure.kind !== "InternalServerError") {
      this.connection.close(POLICY, failure.detail);
      return;
    }
    void this.error(`mounting ${this.mountInfo.source} for ${this.shown} threw`, cause, 0).then(() => this.connection.close(INTERNAL, "the page could not be mounted"));
  }

  /** The request the page is mounted with: its path and query from `?path=`, the session and user of the handshake. */
  private pageRequest(pattern: Matcher): Request<unknown> | undefined {
    const handshake = this.connection.request;
    let wanted: string | undefined;
    try {
      wanted = handshake.query.get("path");
    } catch {
      wanted = undefined;
    }
    if (wanted === undefined || !wanted.startsWith("/")) {
      this.connection.close(POLICY, "not this page's path");
      return undefined;
    }
    const { path, query } = splitTarget(wanted);
    try {
      splitPath(path);
      // Under `Route.under`, the page's path starts with the table's prefix, which the socket
      // (staying under /fw) knows as its mount; the page's own pattern matches what follows.
      const prefix = handshake.mount;
      const inner = prefix === "" ? path : path === prefix ? "/" : path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
      if (inner === undefined) throw new Error("not under the mount");
      const found = pattern.lookupPath("GET", inner);
      if (found.type !== "found") throw new Error("no match");
      const params = decodeParams(found.params, this.mountInfo.params);
      this.shown = pathAndQuery(path, query);
      const request = new Request({
        method: "GET",
        path,
        params,
        query,
        headers: handshake.headers,
        session: handshake.session,
        secure: handshake.secure,
        ...(prefix === "" ? {} : { mount: prefix }),
        ...(handshake.currentUser === undefined ? {} : { currentUser: handshake.currentUser }),
        ...(handshake.clientAddress === undefined ? {} : { clientAddress: handshake.clientAddress }),
      });
      // The query parameters `mount` declares, decoded as the page's GET decodes them (its 400).
      const decoder = this.mountInfo.query;
      return decoder === undefined ? request : withQueryParams(request, decodeQuery(request.query, decoder));
    } catch {
      this.connection.close(POLICY, "not this page's path");
      return undefined;
    }
  }

  /** One client message: checked in the protocol's order, then the event run and answered. */
  async event(text: string): Promise<void> {
    // A page that did not mount is closing: what its client sent meanwhile is dropped.
    if (this.tree === undefined) return;
    const message = eventMessage(text);
    if (message === undefined) {
      this.connection.close(UNSUPPORTED, "not a live message");
      return;
    }
    if (!sameToken(message.c, this.token)) {
      this.connection.close(POLICY, "CSRF token missing or wrong");
      return;
    }
    const pairs = pairsOf(message.v);
    if (pairs === undefined) {
      this.connection.close(UNSUPPORTED, "not a live message");
      return;
    }
    if (pairs.length > MAX_PAIRS) {
      await this.say(`An event may carry at most ${MAX_PAIRS} values; this one had ${pairs.length}.`, message.n);
      return;
    }
    const handler = handlerOf(this.page, message.e);
    if (handler === undefined) {
      await this.say(`no event named ${JSON.stringify(message.e.slice(0, 80))} on this page`, message.n);
      return;
    }
    const request = this.request as Request<unknown>;
    let state: unknown;
    try {
      const { payload } = payloadOf(this.mountInfo, message.e, pairs);
      state = await this.settled(withMountCapabilities(this.mountInfo, request, (capabilities) => handler(this.state, payload, contextOf(this.mountInfo, request, capabilities))), `the event "${message.e}"`);
    } catch (cause) {
      await this.error(`event "${message.e}" of ${this.mountInfo.source} (${this.shown}) threw`, cause, message.n);
      return;
    }
    await this.commit(state, message.n);
  }

  /** A publish on one of the page's topics: `refresh`, else mount again; then what changed is sent (a span of its own when traced). */
  refresh(published: string | undefined): Promise<void> {
    if (this.tree === undefined) return Promise.resolve();
    return traced(`live refresh ${this.mountInfo.source}`, { attributes: { "fw.live.page": this.mountInfo.source, "fw.live.shared": false } }, () => this.refreshNow(published));
  }

  private async refreshNow(published: string | undefined): Promise<void> {
    const request = this.request as Request<unknown>;
    const spec = this.page.spec;
    let state: unknown;
    try {
      state = await this.settled(
        withMountCapabilities(this.mountInfo, request, (capabilities) => (spec.refresh === undefined ? spec.mount(request, capabilities) : spec.refresh(this.state, published, contextOf(this.mountInfo, request, capabilities)))),
        "refresh",
      );
    } catch (cause) {
      await this.error(`refreshing ${this.mountInfo.source} (${this.shown}) threw`, cause, 0);
      return;
    }
    await this.commit(state, 0);
  }

  /** A re-read its view shared (`SharedViews`): the state committed, or the problem shown, in turn with the socket's events. */
  reread(outcome: Reread): void {
    void this.run(async () => {
      if (this.tree === undefined) return;
      if ("state" in outcome) await this.commit(outcome.state, 0);
      else await this.say(outcome.problem, 0);
    }).catch(() => undefined);
  }

  /** The text a failed shared re-read shows on every socket of the view: logged once, here. */
  problem(cause: unknown): string {
    return this.problemText(`refreshing ${this.mountInfo.source} (${this.shown}) threw`, cause);
  }

  /** `work`, or a rejection once it has run longer than the page's `handlerTimeoutMs` (see `settled`). */
  private settled<T>(work: T | Promise<T>, what: string): Promise<T> {
    return settled(work, this.page.spec.handlerTimeoutMs ?? DEFAULT_LIVE_HANDLER_TIMEOUT_MS, what);
  }

  /** Renders `state`; when it fits, it becomes the page's state and its diff is sent. */
  private async commit(state: unknown, n: number): Promise<void> {
    let rendered: { tree: Node; message: string } | undefined;
    try {
      rendered = this.render(state, n);
    } catch (cause) {
      await this.error(`rendering ${this.mountInfo.source} (${this.shown}) threw`, cause, n);
      return;
    }
    if (rendered === undefined) {
      await this.say(`The page rendered more than ${MAX_RENDER / 1024 / 1024} MiB of HTML; the change was not applied.`, n);
      return;
    }
    this.state = state;
    this.subscribe();
    await this.send(rendered.message);
  }

  /**
   * The `r` message for `state`: the whole tree the first time, else its diff against the tree
   * last sent, with the strings of shapes this client has not had. Undefined when over the cap.
   * Only on success does the connection remember the tree and the shapes.
   */
  private render(state: unknown, n: number): { tree: Node; message: string } | undefined {
    const request = this.request as Request<unknown>;
    const output = this.page.spec.render(state, liveView(this.mountInfo, request, this.shown));
    // The page's <title> stays in the tree: the client makes it the document's title and leaves it
    // out of the root, as the layout lifted it out of the first GET, so a title that follows the
    // state (`Count 3`) follows it live too.
    const shapes = new Set<number>();
    const tree = toTree(output as Child, (id) => shapes.add(id));
    if (treeLength(tree, knownShapes, MAX_RENDER) > MAX_RENDER) return undefined;
    const fresh: Record<string, readonly string[]> = {};
    let any = false;
    for (const id of shapes) {
      if (this.sentShapes.has(id)) continue;
      fresh[id] = knownShapes.get(id) as readonly string[];
      any = true;
    }
    const d = this.tree === undefined ? tree : diffTree(this.tree, tree);
    const message = JSON.stringify(any ? { t: "r", n, s: fresh, d } : { t: "r", n, d });
    for (const id of shapes) this.sentShapes.add(id);
    this.tree = tree;
    return { tree, message };
  }

  /** (Re)subscribes to the page's topics, as the state names them now. */
  private subscribe(): void {
    const declared = this.page.spec.topics;
    if (declared === undefined) return;
    const topics = typeof declared === "function" ? declared(this.state, this.request as Request<unknown>) : declared;
    if (sameList(topics, this.#topics)) return;
    for (const leave of this.#unsubscribe) leave();
    this.#topics = [...topics];
    this.#unsubscribe = this.#topics.map((topic) => subscribe(topic, (published) => this.published(published)));
  }

  /**
   * Queues a refresh. Without a `refresh` of its own the page mounts again, whatever the message
   * said, so a burst of publishes waiting behind one another costs one mount; a page's own
   * `refresh` hears every message.
   */
  private published(message: string | undefined): void {
    if (this.#view !== undefined) {
      this.#view.want();
      return;
    }
    const own = this.page.spec.refresh !== undefined;
    if (!own && this.#remountQueued) return;
    this.#remountQueued = !own;
    void this.run(() => {
      this.#remountQueued = false;
      return this.refresh(message);
    }).catch(() => undefined);
  }

  /** Tells the client a problem it may show; the socket stays open. */
  private say(text: string, n: number): Promise<void> {
    return this.send(JSON.stringify({ t: "err", m: text, n }));
  }

  /** A failure of the app's code: logged (with an incident id), and shown as the mode allows. */
  private error(what: string, cause: unknown, n: number): Promise<void> {
    return this.say(this.problemText(what, cause), n);
  }

  /** What a failure shows: a refusal's own text, else (logged with an incident id) what the mode allows. */
  private problemText(what: string, cause: unknown): string {
    // A store's refusal (a missing reference, a duplicate, a stale version) says what a page would.
    const failure = asFailure(storeFailure(cause) ?? cause);
    // A refusal the app threw on purpose (NotFound, Forbidden, …) says what it says, as its page would.
    if (failure.kind !== "InternalServerError") return failure.detail;
    const report = this.connection.report;
    return report === undefined ? fallbackReport(what, cause) : report.call(this.connection, `fw/live: ${what}`, cause);
  }

  private async send(text: string): Promise<void> {
    try {
      await this.connection.send(text);
    } catch {
      // A client that stopped reading (the stalled-send timeout) or left: nothing more to tell it.
      this.connection.close(INTERNAL, "stalled");
    }
  }
}

/** Where a connection built outside fw's server (no `report`) logs: stderr, the production text. */
function fallbackReport(what: string, cause: unknown): string {
  console.error(`fw/live: ${what}:`, cause);
  return "Something went wrong.";
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** The event a client message carries, or undefined when it is not a live message. */
function eventMessage(text: string): EventMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const { t, n, e, c, v } = parsed as Record<string, unknown>;
  if (t !== "e" || typeof e !== "string" || typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) return undefined;
  return { n, e, c: typeof c === "string" ? c : undefined, v };
}

/** `v` as `[name, value]` pairs of text; undefined when it is anything else (absent is none). */
function pairsOf(v: unknown): Pairs | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return undefined;
  for (const pair of v) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string" || typeof pair[1] !== "string") return undefined;
  }
  return v as Pairs;
}

function sameToken(sent: string | undefined, expected: string | undefined): boolean {
  if (sent === undefined || expected === undefined) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
