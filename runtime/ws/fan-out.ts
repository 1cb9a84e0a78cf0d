/**
 * How a named `Room`'s broadcast reaches the sockets of the app's other processes. The core
 * defines only this interface and the process's registry of rooms; an implementation carries
 * the text between processes (fw/db's `PostgresFanOut`: PostgreSQL LISTEN/NOTIFY). Without one
 * installed, a room reaches this process's sockets alone.
 */
export interface FanOut {
  /**
   * Sends `text` to the room named `room` in every other process. Returns at once (a broadcast
   * never waits on the network) and never throws: a message it cannot carry is logged by it and
   * reaches this process's members only. Messages from one process arrive in the order sent.
   */
  publish(room: string, text: string): void;
  /**
   * Starts receiving: from now on, `deliver(room, text)` is called for each message another
   * process published. Called once, when the app starts serving.
   */
  start(deliver: (room: string, text: string) => void): Promise<void>;
  /** Stops receiving and sending; called once, when the app shuts down. */
  close(): Promise<void>;
}

/** The members a room name has in this process: what a message from elsewhere is handed to. */
export interface LocalRoom {
  deliverHere(text: string, except?: unknown): void;
}

const rooms = new Map<string, Set<LocalRoom>>();
let installed: FanOut | undefined;

/** @internal A named room with members in this process: it hears the others' messages. */
export function registerRoom(name: string, room: LocalRoom): void {
  let set = rooms.get(name);
  if (set === undefined) rooms.set(name, (set = new Set()));
  set.add(room);
}

/** @internal A named room whose last member left: nothing here to deliver to. */
export function unregisterRoom(name: string, room: LocalRoom): void {
  const set = rooms.get(name);
  if (set === undefined) return;
  set.delete(room);
  if (set.size === 0) rooms.delete(name);
}

/** @internal Hands `text` to every room of this process with that name, then to the other processes. */
export function broadcastNamed(name: string, text: string, except: unknown): void {
  deliverLocally(name, text, except);
  installed?.publish(name, text);
}

function deliverLocally(name: string, text: string, except?: unknown): void {
  const set = rooms.get(name);
  if (set === undefined) return;
  for (const room of set) room.deliverHere(text, except);
}

/**
 * Makes `fanOut` carry this process's named-room broadcasts to the others, and starts it
 * receiving theirs (`HttpApp` does it with its `fanOut` setting when it starts serving; fw/db's
 * `DbApp` installs PostgreSQL LISTEN/NOTIFY). Resolves once it listens. One at a time: the
 * previous one is closed. `undefined` uninstalls.
 */
export async function installFanOut(fanOut: FanOut | undefined): Promise<void> {
  const previous = installed;
  installed = fanOut;
  if (previous !== undefined && previous !== fanOut) await previous.close();
  if (fanOut !== undefined && fanOut !== previous) await fanOut.start((room, text) => deliverLocally(room, text));
}

/**
 * @internal Whether a fan-out carries this process's named rooms to other processes, so other
 * processes may be serving the app too (what may be remembered in memory depends on it: fw/auth's
 * API tokens).
 */
export function servesWithOtherProcesses(): boolean {
  return installed !== undefined;
}

/** Closes the installed fan-out (at shutdown): named rooms reach this process only from now on. */
export async function closeFanOut(fanOut: FanOut): Promise<void> {
  if (installed !== fanOut) return;
  installed = undefined;
  await fanOut.close();
}
