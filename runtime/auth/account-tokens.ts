import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { ownCopy } from "../http/own-copy.js";

/** What a token sent by mail lets its holder do once. */
export type TokenPurpose = "reset-password" | "confirm-signup" | "change-email" | "download-data";

/**
 * One emailed token as a store keeps it: never the token, only its selector (the half it is
 * found by) and the SHA-256 of its verifier (the half compared, in constant time). Whoever reads
 * the store (a backup, a leaked dump) holds no link that works.
 */
export interface TokenRecord {
  /** 16 random bytes, base64url: the token's first half, the row's key. */
  readonly selector: string;
  /** SHA-256 of the token's second half (32 random bytes), base64url. */
  readonly verifierHash: string;
  readonly purpose: TokenPurpose;
  /** The account it acts on; 0 for a sign-up not yet confirmed (no account exists). */
  readonly userId: number;
  /** The address the link was sent to (normalEmail form): the new address of a change of email. */
  readonly email: string;
  /** What the flow keeps beside (a pending sign-up's password hash); "" when nothing. */
  readonly data: string;
  /** The user's session epoch when the link was sent: a new one (a reset, sign out everywhere) ends the link. */
  readonly epoch: string;
  /** When the link stops working (ms since 1970). */
  readonly expiresAt: number;
}

/**
 * Where emailed tokens wait to be used: `InMemoryTokens`, or fw/db's table (`fw_auth_tokens`,
 * `SqlUsers.tokens()`). `take` must be atomic: of two concurrent uses of one token, one wins.
 */
export interface AccountTokens {
  save(record: TokenRecord): Promise<void>;
  /** The record with this selector, or undefined. */
  find(selector: string): Promise<TokenRecord | undefined>;
  /** Deletes the record when its verifier hash is this one; true for the one call that deleted it. */
  take(selector: string, verifierHash: string): Promise<boolean>;
  /** Deletes the expired records (a recurring job's work); answers how many. */
  purgeExpired(now: number): Promise<number>;
}

/** Emailed tokens kept in this process's memory (tests, `InMemoryUsers`). At most `limit` are kept; the oldest go first. */
export class InMemoryTokens implements AccountTokens {
  readonly #records = new Map<string, TokenRecord>();

  constructor(private readonly limit = 10_000) {}

  async save(record: TokenRecord): Promise<void> {
    this.#records.set(record.selector, { ...record, selector: ownCopy(record.selector), email: ownCopy(record.email) });
    if (this.#records.size > this.limit) this.#records.delete(this.#records.keys().next().value as string);
  }

  async find(selector: string): Promise<TokenRecord | undefined> {
    const record = this.#records.get(selector);
    return record === undefined ? undefined : { ...record };
  }

  async take(selector: string, verifierHash: string): Promise<boolean> {
    const record = this.#records.get(selector);
    if (record === undefined || record.verifierHash !== verifierHash) return false;
    return this.#records.delete(selector);
  }

  async purgeExpired(now: number): Promise<number> {
    let purged = 0;
    for (const [selector, record] of this.#records) {
      if (record.expiresAt <= now && this.#records.delete(selector)) purged++;
    }
    return purged;
  }
}

/** A token as it goes into a link: `<selector>.<verifier>`, both base64url (22 + 1 + 43 characters). */
const TOKEN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/** A fresh token and the record to save for it (the token itself goes only into the mail). */
export function freshToken(fields: Omit<TokenRecord, "selector" | "verifierHash">): { readonly token: string; readonly record: TokenRecord } {
  const selector = randomBytes(16).toString("base64url");
  const verifier = randomBytes(32).toString("base64url");
  return { token: `${selector}.${verifier}`, record: { ...fields, selector, verifierHash: hashOf(verifier) } };
}

function hashOf(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

/** Two strings compared in constant time for their length (a different length is unequal at once: lengths are not secret here). */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A token that checked out: its record, and the verifier hash `take` needs. */
export interface CheckedToken {
  readonly record: TokenRecord;
  readonly verifierHash: string;
}

/**
 * The record a token from a link names, when it is well formed, of this purpose, not expired,
 * and its verifier's hash equals the stored one (compared in constant time); undefined for
 * anything else, alike (tampered, expired, used, another flow's). Does not use it up: `take` does.
 */
export async function checkToken(tokens: AccountTokens, token: string, purpose: TokenPurpose, now: number): Promise<CheckedToken | undefined> {
  const parts = TOKEN.exec(token);
  if (parts === null) return undefined;
  const [, selector, verifier] = parts as unknown as [string, string, string];
  const record = await tokens.find(selector);
  const verifierHash = hashOf(verifier);
  // Compared even when there is no record, so a missing one costs what a wrong one does.
  const matches = sameSecret(verifierHash, record?.verifierHash ?? "x".repeat(verifierHash.length));
  if (record === undefined || !matches || record.purpose !== purpose || record.expiresAt <= now) return undefined;
  return { record, verifierHash };
}
