// @ts-check
/*
 * fw/live's browser client, served at GET /fw/live.js (docs/guides/live.md). Plain
 * JavaScript, no dependencies, no build step. It speaks the live socket's protocol (the messages
 * and the tree of runtime/live/tree.ts) and morphs each `[data-fw-live]` root to each render.
 *
 * Size: about 6.2 KB gzipped (`gzip -9 < live.js | wc -c`: 6,214 bytes when measured; 18 KB as
 * is, comments included); spec/live/client-types.test.ts keeps it under 10 KB. Phoenix LiveView
 * 1.2.12's client, measured the same way: phoenix_live_view.min.js 38,361 bytes (124 KB as is),
 * plus the socket it needs, phoenix.min.js 1.8.16, 8,525: 46,886 bytes gzipped.
 *
 * Test hook: when `window.__fwLiveTest` is an object before this script runs, the client
 * connects nothing and puts `{ html, apply, morph, attach }` on it instead (spec/live).
 */
(() => {
  /** @typedef {{ s: number | string, d: unknown[] }} Shaped a pre-rendered template: its shape's statics around these holes */
  /** @typedef {string | Shaped | unknown[]} Tree a node of the server's tree (protocol "The tree"); a list holds Trees (JSDoc cannot say so) */
  /** @typedef {Record<string, string[]>} Statics */
  /** @typedef {[string, string]} Pair */
  /** @typedef {{ t: string, n?: number, s?: Statics, d?: unknown, m?: string, to?: string }} Message */

  const BUSY = "fw-busy";
  /**
   * True while a render that answers a form's submit is morphed: the form was sent, so the
   * server's values win even in the focused field (a chat box empties after Enter).
   */
  let submitted = false;

  /**
   * The markup of a tree node, with the statics the connection was sent.
   * @param {Tree} node @param {Statics} statics @returns {string}
   */
  const html = (node, statics) => {
    if (typeof node === "string") return node;
    if (Array.isArray(node)) return node.map((child) => html(/** @type {Tree} */ (child), statics)).join("");
    const strings = statics[node.s];
    if (strings === undefined) throw new Error(`fw/live: no statics for shape ${node.s}`);
    let out = strings[0] ?? "";
    for (let i = 1; i < strings.length; i++) out += html(/** @type {Tree} */ (node.d[i - 1]), statics) + strings[i];
    return out;
  };

  /**
   * The tree after a diff: `{u: {hole: diff}}` patches a template's holes or a list's items
   * (`l`: the list's new length, its new items whole in `u`); anything else replaces the node.
   * @param {Tree | undefined} old @param {any} diff (JSON from the server) @returns {Tree}
   */
  const apply = (old, diff) => {
    if (diff === null || typeof diff !== "object" || Array.isArray(diff) || !("u" in diff)) return diff;
    if (old !== undefined && Object.keys(diff.u).length === 0 && diff.l === undefined) return old; // "nothing changed"
    if (old === undefined || typeof old !== "object") throw new Error("fw/live: a patch for a node that has no holes");
    const list = Array.isArray(old);
    const holes = (list ? old : old.d).slice(0, list && diff.l !== undefined ? diff.l : undefined);
    for (const k of Object.keys(diff.u)) holes[Number(k)] = apply(/** @type {Tree} */ (holes[Number(k)]), diff.u[k]);
    if (holes.includes(undefined)) throw new Error("fw/live: a patch left a hole empty");
    return list ? holes : { s: old.s, d: holes };
  };

  /** @param {Element} el @returns {el is HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} */
  const isField = (el) => el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement;

  /**
   * Whether `from` can become `to` in place: same kind of node; elements of the same tag and id.
   * @param {ChildNode} from @param {ChildNode} to
   */
  const same = (from, to) =>
    from.nodeType === to.nodeType &&
    (!(from instanceof Element) || (from.tagName === /** @type {Element} */ (to).tagName && from.id === /** @type {Element} */ (to).id));

  /**
   * Turns `from`'s attributes into `to`'s. The focused field keeps its `value` (the user is typing
   * in it); an element with an event in flight keeps its `fw-busy` class.
   * @param {Element} from @param {Element} to
   */
  const morphAttributes = (from, to) => {
    const focused = !submitted && from === document.activeElement;
    for (const { name, value } of Array.from(to.attributes)) {
      if (focused && name === "value") continue;
      if (from.getAttribute(name) !== value) from.setAttribute(name, value);
    }
    for (const { name } of Array.from(from.attributes)) if (!to.hasAttribute(name) && !(focused && name === "value")) from.removeAttribute(name);
  };

  /**
   * Morphs one element into another of the same tag; form fields also take the new value (the
   * attribute alone does not change what a field shows once the user touched it), unless focused.
   * @param {Element} from @param {Element} to
   */
  const morphElement = (from, to) => {
    const focused = !submitted && from === document.activeElement;
    morphAttributes(from, to);
    if (focused && from instanceof HTMLTextAreaElement) return;
    morph(from, to);
    if (focused) return;
    if (from instanceof HTMLInputElement && to instanceof HTMLInputElement) {
      if (from.type !== "file" && from.value !== to.value) from.value = to.value;
      from.checked = to.hasAttribute("checked");
    } else if (from instanceof HTMLTextAreaElement && from.value !== from.defaultValue) {
      from.value = from.defaultValue; // its text, just morphed (a parsed template's value is not kept up)
    } else if (from instanceof HTMLSelectElement) {
      const options = Array.from(from.options);
      if (from.multiple) for (const option of options) option.selected = option.hasAttribute("selected");
      else from.selectedIndex = Math.max(0, options.findLastIndex((option) => option.hasAttribute("selected")));
    }
  };

  /**
   * Morphs `from`'s children into `to`'s: a node is kept where one of the same kind (tag and id)
   * stands, elements with an id are found wherever they are among the siblings, everything else
   * is inserted; what was not kept is removed.
   * @param {ParentNode & Node} from @param {ParentNode & Node} to
   */
  const morph = (from, to) => {
    const old = Array.from(from.childNodes);
    /** @type {Set<ChildNode>} */
    const kept = new Set();
    /** @type {Map<string, Element>} */
    const byId = new Map();
    for (const child of Array.from(from.children)) if (child.id !== "") byId.set(child.tagName + "#" + child.id, child);
    const wanted = Array.from(to.childNodes);
    let cur = from.firstChild;
    for (let i = 0; i < wanted.length; i++) {
      const next = /** @type {ChildNode} */ (wanted[i]);
      /** @type {ChildNode | null | undefined} */
      let match = null;
      if (next instanceof Element && next.id !== "") {
        match = byId.get(next.tagName + "#" + next.id);
        byId.delete(next.tagName + "#" + next.id);
        if (match !== undefined && match !== cur) from.insertBefore(match, cur);
      } else if (cur !== null && same(cur, next)) {
        match = cur;
      } else if (cur !== null && !(wanted[i + 1] !== undefined && same(cur, /** @type {ChildNode} */ (wanted[i + 1])))) {
        // `cur` is not the next wanted node either: keep the next one of the right kind further
        // along; the nodes skipped go at the end (moving the kept one could blur a focused field).
        match = cur.nextSibling;
        while (match !== null && !same(match, next)) match = match.nextSibling;
      }
      if (match) {
        kept.add(match);
        if (match instanceof Element) morphElement(match, /** @type {Element} */ (next));
        else if (match.nodeValue !== next.nodeValue) match.nodeValue = next.nodeValue;
        cur = match.nextSibling;
      } else {
        from.insertBefore(next, cur); // from the parsed template: adopted into the page
      }
    }
    for (const node of old) if (!kept.has(node) && node.parentNode === from) node.remove();
  };

  /**
   * Morphs a live root's children into `markup`, keeping the focused field's value, caret and
   * focus (found again by id or name if its element had to be replaced); a `<title>` in the
   * markup becomes the document's title.
   * @param {Element} root @param {string} markup
   */
  const render = (root, markup) => {
    const template = document.createElement("template");
    template.innerHTML = markup;
    // The page's <title> goes to the document, framed as the layout framed it on the first GET:
    // the root names the page's own title then (data-fw-title, "Posts" in "Posts · fw example"),
    // and a new one takes its place in the document's.
    const title = Array.from(template.content.querySelectorAll("title")).find((t) => t.namespaceURI === "http://www.w3.org/1999/xhtml");
    if (title !== undefined) {
      const before = root.getAttribute("data-fw-title");
      const framed = before !== null && before !== "" && document.title.includes(before) ? document.title.replace(before, title.text) : title.text;
      if (document.title !== framed) document.title = framed;
      root.setAttribute("data-fw-title", title.text);
      title.remove();
    }
    const active = document.activeElement;
    const field = active !== null && root.contains(active) && isField(active) ? active : null;
    const caret = field && "selectionStart" in field ? selection(field) : null;
    morph(root, template.content);
    if (field === null || document.activeElement === field) return;
    const found = field.isConnected ? field : field.id !== "" ? document.getElementById(field.id) : field.name !== "" ? root.querySelector(`[name="${CSS.escape(field.name)}"]`) : null;
    if (found === null || !isField(found)) return;
    if (found !== field && !submitted) found.value = field.value;
    found.focus();
    if (found instanceof HTMLInputElement || found instanceof HTMLTextAreaElement) restore(found, caret);
  };

  /** @param {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} field @returns {[number, number, "forward" | "backward" | "none"] | null} */
  const selection = (field) => {
    try {
      const f = /** @type {HTMLInputElement} */ (field);
      return f.selectionStart === null ? null : [f.selectionStart, f.selectionEnd ?? f.selectionStart, f.selectionDirection ?? "none"];
    } catch {
      return null; // inputs without a caret (checkbox, number in some browsers) throw
    }
  };

  /** @param {HTMLInputElement | HTMLTextAreaElement} field @param {[number, number, "forward" | "backward" | "none"] | null} caret */
  const restore = (field, caret) => {
    try {
      if (caret !== null) field.setSelectionRange(...caret);
    } catch {
      // as above
    }
  };

  /** A form's fields as pairs, as a POST would send them (files by name). @param {HTMLFormElement} form @param {HTMLElement | null} [submitter] @returns {Pair[]} */
  const fields = (form, submitter) =>
    Array.from(new FormData(form, submitter), ([name, value]) => /** @type {Pair} */ ([name, typeof value === "string" ? value : value.name]));

  /** @param {Element} el @returns {Pair[]} */
  const clickValues = (el) =>
    Array.from(el.attributes)
      .filter((a) => a.name.startsWith("fw-value-"))
      .map((a) => [a.name.slice(9), a.value]);

  /** @param {Element} el */
  const typed = (el) => el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement && !/^(checkbox|radio|file|range|color|date|datetime-local|month|time|week|submit|button|reset|hidden)$/.test(el.type));

  /**
   * One live root: its socket, tree and statics, its delegated listeners.
   * @param {HTMLElement} root @param {boolean} [connect] false in the test hook: messages are handed to `message`
   */
  const attach = (root, connect = true) => {
    /** @type {WebSocket | null} */
    let socket = null;
    /** @type {Tree | undefined} */
    let tree;
    /** @type {Statics} */
    let statics = {};
    let sent = 0;
    let attempt = 0;
    let rendered = false;
    let reconnected = false;
    /** @type {Map<number, Element>} */
    const busy = new Map();
    /** The numbers of the events in flight that submitted a form. @type {Set<number>} */
    const submits = new Set();
    /** @type {Map<Element, ReturnType<typeof setTimeout> | undefined>} */
    const timers = new Map();
    /**
     * Changes sent by leaving a field while a pointer was down (a mousedown on Save blurs the field
     * before its click): held until the pointer is released, then sent after that click's own
     * events, unless its submit carried them. Without this, a quick click's submit raced the
     * blur's change, which went before it or not at all. @type {Map<Element, () => void>}
     */
    const held = new Map();
    let pressed = false;
    window.addEventListener("pointerdown", () => (pressed = true), true);
    const released = () => {
      pressed = false;
      if (held.size === 0) return;
      // pointerup, mouseup, click and submit come in one task: a timer runs after all of them.
      setTimeout(() => {
        for (const [host, flush] of [...held]) held.delete(host), flush();
      }, 0);
    };
    window.addEventListener("pointerup", released, true);
    window.addEventListener("pointercancel", released, true);
    /** @type {HTMLElement | null} */
    let banner = null;

    /** @param {"connecting" | "open" | "closed"} status */
    const status = (status) => root.setAttribute("data-fw-status", status);

    /** @param {string | null} text */
    const say = (text) => {
      if (text === null) return void banner?.remove();
      banner ??= Object.assign(document.createElement("div"), { className: "fw-live-error" });
      banner.setAttribute("role", "alert");
      banner.textContent = text;
      if (!banner.isConnected) root.before(banner);
    };

    /**
     * Sends an event; false when the socket is not open (the caller lets the browser act).
     * @param {string} name @param {Pair[]} values @param {Element} el
     */
    const send = (name, values, el) => {
      if (socket === null || socket.readyState !== WebSocket.OPEN || !rendered) return false;
      socket.send(JSON.stringify({ t: "e", n: ++sent, e: name, c: root.getAttribute("data-fw-csrf") ?? "", v: values }));
      busy.set(sent, el);
      el.classList.add(BUSY);
      return true;
    };

    /** @param {number | undefined} n */
    const done = (n) => {
      const el = n === undefined ? undefined : busy.get(n);
      if (n !== undefined) busy.delete(n), submits.delete(n);
      if (el !== undefined && ![...busy.values()].includes(el)) el.classList.remove(BUSY);
    };

    /** The forms' current values (reconnect: the fresh mount must not wipe what the user typed). */
    const typedValues = () => Array.from(root.querySelectorAll("form"), (form) => /** @type {const} */ ([form, fields(form)]));

    /** @param {Message} msg */
    const message = (msg) => {
      if (msg.t === "r") {
        statics = { ...statics, ...msg.s };
        tree = apply(tree, msg.d);
        const forms = reconnected && !rendered ? typedValues() : [];
        submitted = msg.n !== undefined && submits.has(msg.n);
        try {
          render(root, html(tree, statics));
        } finally {
          submitted = false;
        }
        for (const el of busy.values()) if (el.isConnected) el.classList.add(BUSY);
        done(msg.n);
        say(null);
        if (!rendered) (rendered = true), (attempt = 0), status("open");
        for (const [form, values] of forms) {
          for (const [name, value] of values) {
            const field = form.elements.namedItem(name);
            if (field instanceof HTMLInputElement && !/^(checkbox|radio|hidden|submit)$/.test(field.type) || field instanceof HTMLTextAreaElement) field.value = value;
          }
          const change = form.getAttribute("fw-change");
          if (change !== null && form.isConnected) send(change, fields(form), form);
        }
      } else if (msg.t === "err") {
        done(msg.n);
        say(msg.m ?? "Something went wrong");
      } else if (msg.t === "go" && typeof msg.to === "string" && /^\/(?!\/)/.test(msg.to)) {
        location.assign(msg.to);
      }
    };

    const open = () => {
      status("connecting");
      const url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${root.getAttribute("data-fw-live")}?path=${encodeURIComponent(location.pathname + location.search)}`;
      const ws = (socket = new WebSocket(url));
      statics = {};
      sent = 0;
      rendered = false;
      ws.onmessage = (ev) => {
        if (ws !== socket) return;
        try {
          message(JSON.parse(String(ev.data)));
        } catch (error) {
          console.error(error);
          ws.close(4000, "resync"); // a patch the tree cannot take: mount again from scratch
        }
      };
      ws.onclose = (ev) => {
        if (ws !== socket) return;
        socket = null;
        status("closed");
        for (const n of [...busy.keys()]) done(n);
        if (ev.code === 1008 || ev.code === 1003) return say(`This page stopped updating: ${ev.reason || "the server refused it"}. Reload the page.`);
        const delay = Math.min(8000, 250 * 2 ** attempt++);
        setTimeout(() => ((reconnected = true), open()), delay / 2 + (Math.random() * delay) / 2);
      };
    };

    /** @param {Event} ev @param {string} attr */
    const target = (ev, attr) => {
      const el = ev.target instanceof Element ? ev.target.closest(`[${attr}]`) : null;
      return el !== null && root.contains(el) ? el : null;
    };

    root.addEventListener("click", (ev) => {
      const el = target(ev, "fw-click");
      if (el !== null && send(/** @type {string} */ (el.getAttribute("fw-click")), clickValues(el), el) && !(el instanceof HTMLInputElement)) ev.preventDefault();
    });

    root.addEventListener("submit", (ev) => {
      const form = /** @type {HTMLFormElement} */ (ev.target);
      const name = form.getAttribute("fw-submit");
      if (name === null) return;
      clearTimeout(timers.get(form));
      timers.delete(form);
      held.delete(form);
      // Not connected: the form posts to the page as it would without JavaScript.
      if (send(name, fields(form, /** @type {SubmitEvent} */ (ev).submitter), form)) ev.preventDefault(), submits.add(sent);
    });

    /** @param {Event} ev */
    const changed = (ev) => {
      const el = ev.target;
      if (!(el instanceof Element) || !isField(el)) return;
      const own = el.getAttribute("fw-change");
      const form = el.form;
      const host = own !== null ? el : form !== null && root.contains(form) && form.hasAttribute("fw-change") ? form : null;
      // A typed field sent each change as the user typed; leaving it only flushes a pending one.
      if (host === null || (ev.type === "change" && typed(el) && !timers.has(host))) return;
      const wait = ev.type === "change" ? 0 : Number(el.getAttribute("fw-debounce") ?? host.getAttribute("fw-debounce") ?? (typed(el) ? 200 : 0));
      clearTimeout(timers.get(host));
      held.delete(host);
      const flush = () => {
        timers.delete(host);
        /** @type {Pair[]} */
        const values = host === el ? [[el.name, el instanceof HTMLInputElement && /^(checkbox|radio)$/.test(el.type) && !el.checked ? "" : el.value]] : [...fields(/** @type {HTMLFormElement} */ (host)), ["_target", el.name]];
        send(/** @type {string} */ (host.getAttribute("fw-change")), values, host);
      };
      if (ev.type === "change" && pressed) {
        timers.set(host, undefined); // still pending, for the next change of a typed field
        held.set(host, flush);
        return;
      }
      timers.set(host, setTimeout(flush, wait));
    };
    root.addEventListener("input", changed);
    root.addEventListener("change", changed);

    for (const type of ["keydown", "keyup"]) {
      root.addEventListener(type, (ev) => {
        const el = target(ev, `fw-${type}`);
        const key = /** @type {KeyboardEvent} */ (ev).key;
        const only = el?.getAttribute("fw-key");
        if (el === null || (only != null && only !== key)) return;
        const value = ev.target instanceof Element && isField(ev.target) ? ev.target.value : "";
        send(/** @type {string} */ (el.getAttribute(`fw-${type}`)), [["key", key], ["value", value]], el);
      });
    }

    if (connect) open();
    return { message, root };
  };

  /** @type {{ __fwLiveTest?: object }} */
  const hook = /** @type {any} test hook lookup on the global */ (window);
  if (hook.__fwLiveTest) Object.assign(hook.__fwLiveTest, { html, apply, morph: render, attach });
  else {
    const start = () => document.querySelectorAll("[data-fw-live]").forEach((root) => attach(/** @type {HTMLElement} */ (root)));
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  }
})();
