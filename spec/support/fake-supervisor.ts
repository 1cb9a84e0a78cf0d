import type { ToApp, ToSupervisor } from "../../runtime/dev/protocol.js";
import type { SupervisorLink } from "../../runtime/dev/supervisor-link.js";

/** A stand-in for `fw dev`'s IPC channel: the test says what the supervisor would. */
export function fakeSupervisor(): SupervisorLink & { tell(message: ToApp): void; sent: ToSupervisor[] } {
  const handlers: ((message: ToApp) => void)[] = [];
  const sent: ToSupervisor[] = [];
  const tell = (message: ToApp): void => handlers.forEach((handler) => handler(message));
  return {
    sent,
    listen: (handler) => void handlers.push(handler),
    send: (message) => {
      sent.push(message);
      // As fw dev does once the previous app is gone.
      if (message.type === "loaded") queueMicrotask(() => tell({ fw: "dev", type: "listen" }));
    },
    close: () => {},
    tell,
  };
}
