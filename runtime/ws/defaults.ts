/**
 * The WebSocket defaults, apart from the socket server so that reading them does not load
 * `ws`: an app without WebSocket routes never loads it (less memory at idle).
 */

/** A send gives up on a client that took nothing for this long: 10 s (DESIGN.md). */
export const DEFAULT_WS_SEND_TIMEOUT_MS = 10_000;
/** Every open socket is pinged this often; one that missed the previous ping is cut off. */
export const DEFAULT_WS_PING_INTERVAL_MS = 30_000;
/** The largest message a client may send: 64 KiB; ws closes bigger ones with 1009. */
export const DEFAULT_WS_MAX_MESSAGE_BYTES = 64 * 1024;
