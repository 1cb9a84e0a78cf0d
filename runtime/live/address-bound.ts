/**
 * The bound on live sockets per client address (issue 30, item 6): each open live socket holds
 * a mounted page and takes part in every publish of its topics, so one client must not hold
 * thousands. Past the bound a socket is refused before its page mounts (close 1008, which the
 * live client shows as "this page stopped updating … reload"); the page itself was served.
 */
import { isIPv4, isIPv6 } from "node:net";
import { BootError } from "../routing/boot-error.js";

/** The environment variable that sets the bound. */
export const SOCKETS_PER_ADDRESS_ENV = "FW_LIVE_SOCKETS_PER_ADDRESS";

/**
 * The default: generous, because many people may share one address (an office or a mobile
 * carrier's NAT), and a reverse proxy that fw does not trust (`trustProxy` off) makes every
 * visitor one address.
 */
export const DEFAULT_SOCKETS_PER_ADDRESS = 256;

/** The bound `FW_LIVE_SOCKETS_PER_ADDRESS` sets (else the default); a value that is not a whole number from 1 stops the boot, naming it. */
export function socketsPerAddress(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[SOCKETS_PER_ADDRESS_ENV];
  if (text === undefined || text.trim() === "") return DEFAULT_SOCKETS_PER_ADDRESS;
  if (!/^[1-9][0-9]{0,8}$/.test(text.trim())) {
    throw new BootError(
      `${SOCKETS_PER_ADDRESS_ENV}=${JSON.stringify(text.slice(0, 40))} is not a whole number from 1: set it to how many live sockets one client address may hold open (default ${DEFAULT_SOCKETS_PER_ADDRESS}), or leave it unset.`,
    );
  }
  return Number(text.trim());
}

/**
 * The group a client address counts in: an IPv4 address itself (an IPv4-mapped IPv6 address as
 * its IPv4 address), an IPv6 address by its /64 prefix, the network a single subscriber is
 * usually given (so one client cannot step around the bound by changing its last 64 bits).
 */
export function addressGroup(address: string): string {
  const bare = address.replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped !== null) return mapped[1] as string;
  if (isIPv4(bare) || !isIPv6(bare)) return bare;
  return `${hextets(bare).slice(0, 4).join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, "::" expanded, as lower-case hex without leading zeros. */
function hextets(address: string): string[] {
  const [head = "", tail] = address.toLowerCase().split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  // A trailing dotted IPv4 part is two groups.
  const last = (parts: string[]): string[] => {
    const end = parts[parts.length - 1];
    if (end === undefined || !end.includes(".")) return parts;
    const [a, b, c, d] = end.split(".").map(Number) as [number, number, number, number];
    return [...parts.slice(0, -1), ((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  };
  const front = tail === undefined ? last(groups(head)) : groups(head);
  const back = tail === undefined ? [] : last(groups(tail));
  const zeros = Array.from({ length: 8 - front.length - back.length }, () => "0");
  return [...front, ...zeros, ...back].map((group) => Number.parseInt(group, 16).toString(16));
}

/** Open live sockets per address group, in this process (every live page together). */
const open = new Map<string, number>();

/**
 * Counts one more socket from `address` when its group holds fewer than `limit`: answers the
 * function that counts it out again (call it once, when the socket closes), or undefined when
 * the bound is reached. A socket whose address is unknown (a connection made outside fw's
 * server) is not counted.
 */
export function admitSocket(address: string | undefined, limit: number): (() => void) | undefined {
  if (address === undefined) return () => undefined;
  const group = addressGroup(address);
  const held = open.get(group) ?? 0;
  if (held >= limit) return undefined;
  open.set(group, held + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const now = (open.get(group) ?? 1) - 1;
    if (now <= 0) open.delete(group);
    else open.set(group, now);
  };
}
