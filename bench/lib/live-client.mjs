// A live page's client as the bench needs it: what /fw/live.js does minus the DOM. It GETs the
// page (its session cookie, its CSRF token and its socket's address from the markup), opens
// WS /fw/live/<id>?path=… with the cookie and the page's origin, keeps the tree the server sends
// (`r` messages: shape strings, then a full node, then diffs), applies each diff and builds the
// root's HTML from the tree, as the browser client does before it morphs the DOM.
import { WebSocket } from "../../node_modules/ws/wrapper.mjs";

// The tree's HTML and a diff's application are fw/live's own (dist/runtime/live/tree.js, built
// before the bench runs): the same functions whose results spec/live checks against the browser
// client's, so the bench applies exactly what the client does.
export { applyDiff, treeHtml } from "../../dist/runtime/live/tree.js";
import { applyDiff, treeHtml } from "../../dist/runtime/live/tree.js";

/** GETs a live page: its status, body, session cookie, CSRF token and socket path. */
export async function getLivePage(base, path, cookie) {
  const response = await fetch(base + path, { headers: cookie === undefined ? {} : { cookie } });
  const html = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  const socket = /data-fw-live="([^"]+)"/.exec(html)?.[1];
  const csrf = /data-fw-csrf="([^"]+)"/.exec(html)?.[1];
  if (socket === undefined || csrf === undefined) throw new Error(`GET ${path} has no live root (data-fw-live and data-fw-csrf)`);
  const set = response.headers.getSetCookie().find((c) => c.startsWith("fw_session="))?.split(";")[0];
  return { html, bytes: Buffer.byteLength(html), cookie: set ?? cookie, csrf, socket };
}

/**
 * One live page connection. `opened` resolves after the first render (the mount) was applied.
 * `send(event, pairs)` resolves once the render answering it was applied, with the frame's size
 * in bytes and the time from the send to the applied diff (ms).
 */
export class LiveConnection {
  constructor(base, path, page) {
    this.shapes = new Map();
    this.tree = undefined;
    this.n = 0;
    this.waiting = new Map();
    this.page = page;
    const url = `${base.replace(/^http/, "ws")}${page.socket}?path=${encodeURIComponent(path)}`;
    this.socket = new WebSocket(url, { origin: base, headers: { cookie: page.cookie }, perMessageDeflate: false });
    this.opened = new Promise((done, fail) => {
      this.waiting.set(0, { done, fail, at: performance.now() });
      this.socket.once("unexpected-response", (_req, res) => fail(new Error(`live handshake answered ${res.statusCode}`)));
      this.socket.once("error", fail);
      this.socket.once("close", (code, reason) => {
        for (const waiter of this.waiting.values()) waiter.fail(new Error(`live socket closed ${code} ${reason}`));
        this.waiting.clear();
      });
    });
    this.socket.on("message", (data) => this.receive(data));
  }

  receive(data) {
    const message = JSON.parse(String(data));
    if (message.t === "err") {
      const waiter = this.waiting.get(message.n);
      this.waiting.delete(message.n);
      waiter?.fail(new Error(`live error: ${message.m}`));
      return;
    }
    if (message.t !== "r") return;
    for (const [id, strings] of Object.entries(message.s ?? {})) this.shapes.set(Number(id), strings);
    this.tree = this.tree === undefined ? message.d : applyDiff(this.tree, message.d);
    this.html = treeHtml(this.tree, this.shapes);
    const waiter = this.waiting.get(message.n);
    if (waiter === undefined) return; // a refresh nobody waits for
    this.waiting.delete(message.n);
    waiter.done({ bytes: data.length, ms: performance.now() - waiter.at });
  }

  send(event, pairs = []) {
    const n = ++this.n;
    return new Promise((done, fail) => {
      this.waiting.set(n, { done, fail, at: performance.now() });
      this.socket.send(JSON.stringify({ t: "e", n, e: event, c: this.page.csrf, v: pairs }));
    });
  }

  close() {
    this.socket.terminate();
  }
}
