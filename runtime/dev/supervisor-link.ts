import { isToApp, SUPERVISED_ENV, type ToApp, type ToSupervisor } from "./protocol.js";

/** The app's side of the channel to `fw dev`. */
export interface SupervisorLink {
  /** Calls `handler` with each message from the supervisor. */
  listen(handler: (message: ToApp) => void): void;
  send(message: ToSupervisor): void;
  /** Stops listening: the channel no longer keeps the process alive. */
  close(): void;
}

/**
 * The IPC channel to `fw dev`, when this process was started by it (it sets
 * `FW_DEV_SUPERVISED=1` and opens the channel); undefined otherwise, for instance when the app
 * runs `dev` by hand or inside a test runner's worker, whose channel belongs to the runner.
 * When the supervisor goes away, the app stops too (as on SIGTERM), so no orphaned dev
 * server keeps the port.
 */
export function supervisorLink(env: NodeJS.ProcessEnv = process.env): SupervisorLink | undefined {
  const send = process.send?.bind(process);
  if (env[SUPERVISED_ENV] !== "1" || send === undefined) return undefined;
  const handlers: ((message: ToApp) => void)[] = [];
  const onMessage = (message: unknown): void => {
    if (isToApp(message)) for (const handler of handlers) handler(message);
  };
  const onDisconnect = (): void => {
    process.kill(process.pid, "SIGTERM");
  };
  process.on("message", onMessage);
  process.once("disconnect", onDisconnect);
  return {
    listen: (handler) => {
      handlers.push(handler);
    },
    send: (message) => {
      if (process.connected) send(message);
    },
    // Node keeps the channel referenced while `message`/`disconnect` listeners exist.
    close: () => {
      process.off("message", onMessage);
      process.off("disconnect", onDisconnect);
    },
  };
}
