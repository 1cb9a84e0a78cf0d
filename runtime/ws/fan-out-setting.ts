import { BootError } from "../routing/boot-error.js";
import type { FanOut } from "./fan-out.js";

/** The variable that chooses the fan-out: `redis://host:6379` (or `rediss://`), or `none`. */
export const FAN_OUT_ENV = "FW_FANOUT";

/**
 * The fan-out `FW_FANOUT` asks for: a Redis one for `redis://…` / `rediss://…` (loaded when the app
 * starts serving: an app that does not ask never loads it, nor node-redis), `null` for `none`
 * (named rooms stay in their process, even on PostgreSQL), undefined when unset (fw/db's `DbApp`
 * on PostgreSQL then installs LISTEN/NOTIFY). Anything else stops the boot, naming the variable.
 */
export function fanOutSetting(env: NodeJS.ProcessEnv, log: (line: string) => void): FanOut | null | undefined {
  const value = env[FAN_OUT_ENV]?.trim();
  if (value === undefined || value === "") return undefined;
  if (value === "none") return null;
  if (/^rediss?:\/\//.test(value)) return new LazyRedisFanOut(value, log);
  throw new BootError(`${FAN_OUT_ENV}=${JSON.stringify(value.replace(/\/\/[^@/]*@/, "//…@"))} is not a fan-out fw knows: set redis://host:6379 (or rediss:// for TLS) to carry room broadcasts through Redis, or none to keep them in each process.`);
}

/** The Redis fan-out, its module (and node-redis) loaded when it starts. */
class LazyRedisFanOut implements FanOut {
  #inner: FanOut | undefined;

  constructor(
    private readonly url: string,
    private readonly log: (line: string) => void,
  ) {}

  publish(room: string, text: string): void {
    this.#inner?.publish(room, text);
  }

  async start(deliver: (room: string, text: string) => void): Promise<void> {
    const { RedisFanOut } = await import("../fanout/redis-fan-out.js");
    const inner = new RedisFanOut({ url: this.url, log: this.log });
    await inner.start(deliver);
    this.#inner = inner;
  }

  async close(): Promise<void> {
    await this.#inner?.close();
  }
}
