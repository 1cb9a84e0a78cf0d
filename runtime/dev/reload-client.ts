import { RELOAD, RELOAD_PATH } from "./reload-hub.js";

/**
 * How long the client waits before trying the socket again after it closed: briefly at first (a
 * restart after a build takes about half a second, and every retry interval is added to the
 * save → reload time), then slowly, so a page left open after `fw dev` stopped does not keep
 * knocking ten times a second.
 */
export const RETRY_MS = 100;
export const SLOW_RETRY_MS = 2000;
/** Quick retries before the client slows down: about 5 s of them. */
export const QUICK_RETRIES = 50;

/**
 * The reload client, as a `<script>` element. It opens the reload socket (naming the boot of
 * the server that served the page) and reloads the page when told `reload`; when the socket
 * closes (the server restarts on every successful build) it tries again (every 100 ms for
 * about 5 s, then every 2 s) and reloads once it is back, so the page shows what the new server
 * answers.
 */
export function reloadClient(boot: string): string {
  // `boot` is hex from randomBytes; JSON.stringify quotes it, and "<" never occurs in it.
  const script = `(() => {
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + ${JSON.stringify(RELOAD_PATH)} + "?boot=" + ${JSON.stringify(boot)};
  let tries = 0;
  const connect = (again) => {
    const socket = new WebSocket(url);
    socket.onopen = () => { if (again) location.reload(); };
    socket.onmessage = (event) => { if (event.data === ${JSON.stringify(RELOAD)}) location.reload(); };
    socket.onclose = () => setTimeout(() => connect(true), tries++ < ${QUICK_RETRIES} ? ${RETRY_MS} : ${SLOW_RETRY_MS});
  };
  connect(false);
})();`;
  return `<script data-fw-reload data-fw-boot="${boot}">${script}</script>`;
}

/** `html` with `snippet` just before its last `</body>` (any case), or at the end when it has none. */
export function injectBeforeBodyEnd(html: string, snippet: string): string {
  const at = html.toLowerCase().lastIndexOf("</body>");
  return at === -1 ? html + snippet : html.slice(0, at) + snippet + html.slice(at);
}
