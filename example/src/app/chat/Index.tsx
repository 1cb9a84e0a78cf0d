import { Ok, raw, type Request, type Response } from "fw";
import { auth } from "../../auth.js";

/** Only signed-in users reach the chat; anyone else is sent to sign in and brought back. */
export const guarded = auth.guarded();

// Messages are added with textContent, so nothing a user types is ever read as HTML.
const client = `
  const list = document.getElementById("chat-messages");
  const form = document.getElementById("chat-form");
  const input = document.getElementById("chat-text");
  const socket = new WebSocket(location.origin.replace(/^http/, "ws") + "/chat/socket");
  socket.addEventListener("message", (event) => {
    const item = document.createElement("li");
    item.textContent = event.data;
    list.append(item);
  });
  socket.addEventListener("close", () => { form.hidden = true; });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (input.value !== "") socket.send(input.value);
    input.value = "";
  });
`;

export function index(request: Request): Response {
  return Ok(
    <>
      <title>Chat</title>
      <h1>Chat</h1>
      <p>Everyone signed in and on this page sees what you send. You are user {request.currentUser ?? "?"}.</p>
      <ul id="chat-messages"></ul>
      <form id="chat-form">
        <label for="chat-text">Message</label>
        <input id="chat-text" autocomplete="off" />
        <button type="submit">Send</button>
      </form>
      <script>{raw(client)}</script>
    </>,
  );
}
