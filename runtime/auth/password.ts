import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * scrypt cost for new hashes: N = 2^15, r = 8, p = 1 (32 MiB and roughly 50–100 ms per hash on
 * a laptop). Each stored hash names its own parameters, so raising these later keeps old hashes
 * verifiable.
 */
export const SCRYPT_COST = { log2N: 15, r: 8, p: 1 } as const;

const SALT_BYTES = 16;
const KEY_BYTES = 32;
const PREFIX = "scrypt";

/** What one stored hash says about itself. */
interface Parsed {
  readonly log2N: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/**
 * A salted scrypt hash of `password` as one self-describing string:
 * `scrypt$<log2 N>$<r>$<p>$<salt, base64url>$<hash, base64url>`. Store this, never the password.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const { log2N, r, p } = SCRYPT_COST;
  const hash = await derive(password, salt, KEY_BYTES, log2N, r, p);
  return [PREFIX, log2N, r, p, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

/**
 * True when `password` hashes to `stored`, compared in constant time. A stored string that is
 * not a hash fw wrote (or asks for absurd costs) never matches.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (parsed === undefined) return false;
  const hash = await derive(password, parsed.salt, parsed.hash.length, parsed.log2N, parsed.r, parsed.p);
  return timingSafeEqual(hash, parsed.hash);
}

function derive(password: string, salt: Buffer, length: number, log2N: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** log2N;
  // Node refuses when 128 * N * r exceeds maxmem (32 MiB by default, exactly this cost): leave room.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
  return new Promise((done, fail) => scrypt(password.normalize("NFC"), salt, length, options, (error, key) => (error === null ? done(key) : fail(error))));
}

/** Bounds on what a stored hash may ask for, so a corrupt or hostile row cannot stall the server. */
const LIMITS = { log2N: [10, 20], r: [1, 16], p: [1, 4], key: [KEY_BYTES, 64] } as const;
/** scrypt needs about 128 * N * r bytes: a stored hash may ask for at most 256 MiB. */
const MAX_MEMORY = 256 * 1024 * 1024;

function parse(stored: string): Parsed | undefined {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== PREFIX) return undefined;
  const [log2N, r, p] = parts.slice(1, 4).map((part) => (/^[0-9]{1,3}$/.test(part) ? Number(part) : Number.NaN)) as [number, number, number];
  const salt = Buffer.from(parts[4] as string, "base64url");
  const hash = Buffer.from(parts[5] as string, "base64url");
  const within = (value: number, [low, high]: readonly [number, number]): boolean => value >= low && value <= high;
  const sane = within(log2N, LIMITS.log2N) && within(r, LIMITS.r) && within(p, LIMITS.p) && 128 * 2 ** log2N * r <= MAX_MEMORY;
  if (!sane || !within(hash.length, LIMITS.key) || salt.length < 8) {
    return undefined;
  }
  return { log2N, r, p, salt, hash };
}
