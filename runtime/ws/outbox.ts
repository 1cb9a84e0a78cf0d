/** The part of ws's WebSocket a send needs. */
export interface Sink {
  /** False once either side started closing. */
  readonly open: boolean;
  readonly bufferedAmount: number;
  /** `done` runs once the frame is written to the socket, or with the reason it was not. */
  send(text: string, done: (error?: Error | null) => void): void;
}

/** A send gave up: the client stopped reading. The caller's cue to close the connection. */
export class StalledClient extends Error {
  override readonly name = "StalledClient";
  constructor(timeoutMs: number) {
    super(`The WebSocket client took no data for ${timeoutMs} ms (it stopped reading): close the connection.`);
  }
}

/** A send on a connection that is closed or closing. */
export class ConnectionClosed extends Error {
  override readonly name = "ConnectionClosed";
  constructor(what = "The WebSocket connection is closed: nothing more can be sent on it.", options?: ErrorOptions) {
    super(what, options);
  }
}

const WRITE_FAILED = "The WebSocket connection closed before the frame was written.";

/** A send, from its call until the frame is on the wire. */
interface Pending {
  readonly text: string;
  readonly settle: (error?: Error) => void;
}

/**
 * Sends frames and says when each is on the wire (spec 2.19, 8): a send resolves from ws's
 * write callback, and rejects with `StalledClient` when that has not happened within
 * `timeoutMs`. Above `highWater` buffered bytes a frame is not even handed to ws: it waits, in
 * order, until earlier writes drain, so a client that stopped reading costs at most about
 * `highWater` plus one frame of memory however often the application sends. A rejected send
 * leaves the connection open: closing it is the caller's decision.
 */
export class Outbox {
  /** Sends held back until the buffer drains, in call order. */
  readonly #held: Pending[] = [];
  /** Every unsettled send, so a close can reject them all. */
  readonly #unsettled = new Set<Pending>();
  /** Characters of the held frames: how far behind the client is beyond what ws buffers. */
  #heldChars = 0;
  #closed = false;

  constructor(
    private readonly sink: Sink,
    private readonly timeoutMs: number,
    private readonly highWater: number,
  ) {}

  /** Characters waiting behind ws's buffer (held frames), not yet handed to ws. */
  get backlog(): number {
    return this.#heldChars;
  }

  send(text: string): Promise<void> {
    if (this.#closed || !this.sink.open) return Promise.reject(new ConnectionClosed());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => pending.settle(new StalledClient(this.timeoutMs)), this.timeoutMs);
      const pending: Pending = {
        text,
        settle: (error) => {
          if (!this.#unsettled.delete(pending)) return; // settled already: a late callback
          clearTimeout(timer);
          const held = this.#held.indexOf(pending);
          if (held !== -1) {
            this.#held.splice(held, 1);
            this.#heldChars -= text.length;
          }
          if (error === undefined) resolve();
          else reject(error);
        },
      };
      this.#unsettled.add(pending);
      this.#held.push(pending);
      this.#heldChars += text.length;
      this.#flush();
    });
  }

  /** The connection closed: every send not yet on the wire rejects. */
  close(): void {
    this.#closed = true;
    for (const pending of [...this.#unsettled]) pending.settle(new ConnectionClosed(WRITE_FAILED));
  }

  /** Hands held frames to ws, in order, while the buffer is below the mark. */
  #flush(): void {
    while (this.#held.length > 0 && !this.#closed && this.sink.bufferedAmount <= this.highWater) {
      const pending = this.#held.shift() as Pending; // length checked above
      this.#heldChars -= pending.text.length;
      this.sink.send(pending.text, (error) => {
        // Node's write callback passes null on success, not undefined.
        pending.settle(error instanceof Error ? new ConnectionClosed(WRITE_FAILED, { cause: error }) : undefined);
        this.#flush(); // a write finished, so the buffer may have drained
      });
    }
  }
}
