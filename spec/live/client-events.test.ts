import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Page } from "playwright-core";
import { WebSocketServer, type WebSocket } from "ws";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHROMIUM_ARGS } from "../support/chromium.js";

// What fw/live's client sends, seen from the other end of its socket: a page that loads the
// client (served by a node:http server on 127.0.0.1) and a `ws` peer that records each message
// and answers as the test says. This pins the client's side of the protocol (events, values,
// debounce, fw-busy, reconnect); the client against fw's own server is client-browser.test.tsx.
const found = inject("chromium");
const CHROMIUM = "path" in found ? found.path : undefined;
const CLIENT = readFileSync(new URL("../../runtime/live/client/live.js", import.meta.url), "utf8");

const MARKUP = [
  '<button type="button" id="go" fw-click="go" fw-value-id="7" fw-value-kind="x">Go</button>',
  '<form id="f" fw-change="check" fw-submit="save" fw-debounce="60000" action="/nowhere" method="post">',
  '<input name="title"><select name="cat"><option>a</option><option>b</option></select>',
  '<input type="checkbox" name="pub" value="true"><button type="submit">Save</button></form>',
  '<input id="k" name="q" fw-keydown="key" fw-key="Enter">',
].join("");

const PAGE = `<!doctype html><title>t</title><div data-fw-live="/sock" data-fw-csrf="tok">${MARKUP}</div><script src="/fw/live.js" defer></script>`;

interface Peer {
  readonly socket: WebSocket;
  readonly url: string;
  readonly messages: unknown[];
  next(): Promise<Record<string, unknown>>;
}

let http: Server;
let sockets: WebSocketServer;
let base: string;
let browser: Browser | undefined;
/** Connections in the order they came, each resolved when it opens. */
const peers: Promise<Peer>[] = [];
let arrived: (peer: Peer) => void = () => {};
const nextPeer = (): Promise<Peer> => {
  const waiting = new Promise<Peer>((resolve) => (arrived = resolve));
  peers.push(waiting);
  return waiting;
};

beforeAll(async () => {
  if (CHROMIUM === undefined) return; // skipped below
  http = createServer((request, response) => {
    const js = request.url?.startsWith("/fw/live.js") === true;
    response.writeHead(200, { "content-type": js ? "text/javascript" : "text/html" }).end(js ? CLIENT : PAGE);
  });
  sockets = new WebSocketServer({ server: http });
  sockets.on("connection", (socket, request) => {
    const messages: unknown[] = [];
    const waiting: ((message: Record<string, unknown>) => void)[] = [];
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>;
      messages.push(message);
      waiting.shift()?.(message);
    });
    arrived({ socket, url: request.url ?? "", messages, next: () => new Promise((resolve) => waiting.push(resolve)) });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  sockets?.close();
  await new Promise((resolve) => (http === undefined ? resolve(undefined) : http.close(resolve)));
});

const render = (peer: Peer, n: number, d: unknown) => peer.socket.send(JSON.stringify({ t: "r", n, d }));
const run = <T>(tab: Page, js: string): Promise<T> => tab.evaluate(js) as Promise<T>;

/** Opens the page and answers its first connection with the mount render. */
async function open(): Promise<{ tab: Page; peer: Peer }> {
  if (browser === undefined) throw new Error("beforeAll did not launch a browser");
  const tab = await browser.newPage();
  const connected = nextPeer();
  await tab.goto(`${base}/page?x=1&y=%C3%A9`);
  const peer = await connected;
  render(peer, 0, MARKUP);
  await tab.waitForSelector('[data-fw-status="open"]');
  return { tab, peer };
}

describe.skipIf(CHROMIUM === undefined)("fw/live's client: what it sends (Chromium, a recording peer)", () => {
  it("connects to the root's socket with the page's path and query; a click sends its fw-value-* with the CSRF token; fw-busy until answered", async () => {
    const { tab, peer } = await open();
    expect(peer.url).toBe(`/sock?path=${encodeURIComponent("/page?x=1&y=%C3%A9")}`);
    const sent = peer.next();
    await tab.click("#go");
    expect(await sent).toEqual({ t: "e", n: 1, e: "go", c: "tok", v: [["id", "7"], ["kind", "x"]] });
    expect(await run<boolean>(tab, `document.getElementById("go").classList.contains("fw-busy")`)).toBe(true);
    render(peer, 1, { u: {} });
    await tab.waitForSelector("#go:not(.fw-busy)");
    await tab.close();
  });

  it("typing waits for the debounce, leaving the field sends it at once with _target; a select sends at once", async () => {
    const { tab, peer } = await open();
    let sent = peer.next();
    await tab.click("[name=title]");
    await tab.keyboard.type("abc");
    await tab.keyboard.press("Tab"); // fw-debounce is a minute: only leaving the field sends
    expect(await sent).toEqual({ t: "e", n: 1, e: "check", c: "tok", v: [["title", "abc"], ["cat", "a"], ["_target", "title"]] });
    sent = peer.next();
    await tab.selectOption("[name=cat]", "b");
    expect(await sent).toEqual({ t: "e", n: 2, e: "check", c: "tok", v: [["title", "abc"], ["cat", "b"], ["_target", "cat"]] });
    sent = peer.next();
    await tab.check("[name=pub]");
    expect(await sent).toEqual({ t: "e", n: 3, e: "check", c: "tok", v: [["title", "abc"], ["cat", "b"], ["pub", "true"], ["_target", "pub"]] });
    expect(peer.messages).toHaveLength(3);
    await tab.close();
  });

  it("a key event sends only for its fw-key, with the field's value; a submit sends the form instead of posting", async () => {
    const { tab, peer } = await open();
    let sent = peer.next();
    await tab.click("#k");
    await tab.keyboard.type("hi");
    await tab.keyboard.press("Enter");
    expect(await sent).toEqual({ t: "e", n: 1, e: "key", c: "tok", v: [["key", "Enter"], ["value", "hi"]] });
    sent = peer.next();
    await run(tab, "window.stillHere = true");
    await tab.fill("[name=title]", "t");
    await tab.click("#f [type=submit]");
    expect(await sent).toEqual({ t: "e", n: 2, e: "save", c: "tok", v: [["title", "t"], ["cat", "a"]] });
    expect(await run<boolean>(tab, `document.getElementById("f").classList.contains("fw-busy")`)).toBe(true);
    render(peer, 2, { u: {} });
    await tab.waitForSelector("#f:not(.fw-busy)");
    expect(await run<boolean>(tab, "window.stillHere")).toBe(true);
    expect(peer.messages).toHaveLength(2); // the pending change was dropped: the submit carries it
    await tab.close();
  });

  it("a blur's change while the pointer is down waits for its release: a Save clicked after typing sends the save alone, slow or quick (issue 39, item 22)", async () => {
    const { tab, peer } = await open();
    await tab.fill("[name=title]", "typed");
    const box = await tab.locator("#f [type=submit]").boundingBox();
    if (box === null) throw new Error("the Save button has no box");
    await tab.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await tab.mouse.down(); // blurs the field: its change is held while the button is pressed
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(peer.messages).toEqual([]);
    const sent = peer.next();
    await tab.mouse.up();
    expect(await sent).toEqual({ t: "e", n: 1, e: "save", c: "tok", v: [["title", "typed"], ["cat", "a"]] });
    render(peer, 1, { u: {} });
    await tab.waitForSelector("#f:not(.fw-busy)");
    // The field's change went with the submit, never after it.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(peer.messages).toHaveLength(1);
    // Released elsewhere (no click, no submit), the held change is sent.
    await tab.fill("[name=title]", "again");
    await tab.mouse.move(5, 5);
    await tab.mouse.down();
    const change = peer.next();
    await tab.mouse.up();
    expect(await change).toEqual({ t: "e", n: 2, e: "check", c: "tok", v: [["title", "again"], ["cat", "a"], ["_target", "title"]] });
    await tab.close();
  });

  it("after a lost connection it reconnects, mounts again, keeps what the user typed and re-sends the fw-change form", async () => {
    const { tab, peer } = await open();
    await tab.fill("[name=title]", "draft text");
    const sent = peer.next();
    await tab.click("#go"); // leaving the field sends its change too, after the click
    await sent;
    const again = nextPeer();
    peer.socket.close(1012, "restarting");
    await tab.waitForSelector('[data-fw-status="closed"], [data-fw-status="connecting"]');
    const second = await again;
    const resent = second.next();
    render(second, 0, MARKUP); // the fresh mount renders an empty title
    await tab.waitForSelector('[data-fw-status="open"]');
    expect(await resent).toEqual({ t: "e", n: 1, e: "check", c: "tok", v: [["title", "draft text"], ["cat", "a"]] });
    expect(await run<string>(tab, `document.querySelector("[name=title]").value`)).toBe("draft text");
    expect(await run<boolean>(tab, `document.getElementById("go").classList.contains("fw-busy")`)).toBe(false);
    await tab.close();
  });

  it("a policy refusal (1008) is not retried: the root says closed and a banner says why", async () => {
    const { tab, peer } = await open();
    peer.socket.close(1008, "CSRF token missing or wrong");
    await tab.waitForSelector('[data-fw-status="closed"]');
    expect(await tab.textContent(".fw-live-error[role=alert]")).toContain("CSRF token missing or wrong");
    await tab.close();
  });
});
