import { live, type LiveValues } from "fw/live";
import { auth } from "../../auth.js";
import { CHAT_TOPIC, KEPT_LINES, say } from "../../chat.js";

/** Only signed-in users reach the chat (its socket too: a handshake without a sign-in is 403). */
export const guarded = auth.guarded();

/** What one chat page holds: who is chatting here, and the lines said since the page was opened. */
interface Chat {
  readonly me: string;
  readonly lines: readonly string[];
}

/** The most characters one message may have; a longer one is cut (the chat is for short lines). */
const MAX_MESSAGE = 500;

/**
 * The chat as a live page: `GET /chat` renders it, `WS /fw/live/chat.Index` keeps it current.
 * Sending runs `send` on the server, which says the line to the room's sockets and the live
 * pages (src/chat.ts); each live chat page appends what is published on the topic. Lines are
 * JSX text, so nothing a user types is ever read as HTML. Without JavaScript the form posts to
 * /chat, which runs the same event (the page shows the lines said since, none on a fresh load).
 */
export const index = live({
  mount: async (request): Promise<Chat> => ({ me: (await auth.userOf(request))?.email ?? `user ${request.currentUser ?? "?"}`, lines: [] }),
  render: (state, view) => (
    <>
      <title>Chat</title>
      <h1>Chat</h1>
      <p>Everyone signed in and on this page sees what you send. You are {state.me}.</p>
      <ul id="chat-messages">
        {state.lines.map((line) => (
          <li>{line}</li>
        ))}
      </ul>
      <form id="chat-form" method="post" action="/chat" fw-submit="send">
        <input type="hidden" name="_csrf" value={view.csrf} />
        <input type="hidden" name="_fw_event" value="send" />
        <label for="chat-text">Message</label>
        <input id="chat-text" type="text" name="text" autocomplete="off" maxlength={MAX_MESSAGE} />
        <button type="submit">Send</button>
      </form>
    </>
  ),
  events: {
    send: (state: Chat, values: LiveValues): Chat => {
      const text = (values["text"] ?? "").slice(0, MAX_MESSAGE);
      if (text.trim() !== "") say(`${state.me}: ${text}`);
      return state;
    },
  },
  topics: [CHAT_TOPIC],
  // A published line is appended (the page keeps the last KEPT_LINES); a bare refresh keeps the lines.
  refresh: (state: Chat, line: string | undefined): Chat => (line === undefined ? state : { ...state, lines: [...state.lines, line].slice(-KEPT_LINES) }),
});
