import { createHash, randomBytes } from "node:crypto";
import { ownCopy } from "../http/own-copy.js";

/**
 * One per-user API token as a store keeps it: never the token, only its selector (the half it
 * is found by) and the SHA-256 of its verifier (the half compared, in constant time), as the
 * account flows' emailed tokens are kept. Whoever reads the store holds no token that works.
 */
export interface ApiTokenRecord {
  /** 16 random bytes, base64url: the token's first half, the row's key. */
  readonly selector: string;
  /** SHA-256 of the token's second half (32 random bytes), base64url. */
  readonly verifierHash: string;
  readonly userId: number;
  /** What its owner called it ("deploy script"). */
  readonly name: string;
  /** The app's scopes it was given. */
  readonly scopes: readonly string[];
  readonly createdAt: number;
  /** When it stops working (ms since 1970). */
  readonly expiresAt: number;
  /** When it was last used, to the minute (`LAST_USE_RESOLUTION_MS`); undefined when never. */
  readonly lastUsedAt: number | undefined;
}

/** A token's last use is written at most this often (one write a minute for a busy token, not one a call). */
export const LAST_USE_RESOLUTION_MS = 60_000;

/**
 * Where per-user API tokens are kept: `InMemoryApiTokens` (with `InMemoryUsers`), or fw/db's
 * `fw_api_tokens` table (`SqlUsers.apiTokens()`), which every process reads. The store is the
 * truth: a revoked token is gone for every process at once, since every call asks it.
 */
export interface ApiTokenStore {
  /** Saves a new token, unless its user holds `max` tokens already: false then. */
  create(record: ApiTokenRecord, max: number): Promise<boolean>;
  /**
   * The record with this selector, or undefined, in one round trip: what an API call asks. When
   * the record's verifier hash is `verifierHash` and its last use is unknown or at `staleBefore`
   * or earlier (`now - LAST_USE_RESOLUTION_MS`), its last use becomes `now` in the same statement.
   */
  use(selector: string, verifierHash: string, now: number, staleBefore: number): Promise<ApiTokenRecord | undefined>;
  /** The user's tokens, newest first. */
  list(userId: number): Promise<readonly ApiTokenRecord[]>;
  /** Deletes the user's token with this selector; false when the user has none such. */
  revoke(userId: number, selector: string): Promise<boolean>;
  /** Deletes every token of the user (the account is deleted); answers how many. */
  revokeAll(userId: number): Promise<number>;
  /** Deletes the expired tokens (a recurring job's work); answers how many. */
  purgeExpired(now: number): Promise<number>;
}

/** Tokens in this process's memory (`InMemoryUsers`, tests): at most `limit`, the oldest dropped first. */
export class InMemoryApiTokens implements ApiTokenStore {
  readonly #records = new Map<string, ApiTokenRecord>();

  constructor(private readonly limit = 100_000) {}

  async create(record: ApiTokenRecord, max: number): Promise<boolean> {
    if ([...this.#records.values()].filter((held) => held.userId === record.userId).length >= max) return false;
    this.#records.set(ownCopy(record.selector), { ...record, name: ownCopy(record.name), scopes: [...record.scopes] });
    if (this.#records.size > this.limit) this.#records.delete(this.#records.keys().next().value as string);
    return true;
  }

  async use(selector: string, verifierHash: string, now: number, staleBefore: number): Promise<ApiTokenRecord | undefined> {
    const record = this.#records.get(selector);
    if (record === undefined) return undefined;
    if (record.verifierHash === verifierHash && (record.lastUsedAt === undefined || record.lastUsedAt <= staleBefore)) {
      this.#records.set(selector, { ...record, lastUsedAt: now });
    }
    return { ...record };
  }

  async list(userId: number): Promise<readonly ApiTokenRecord[]> {
    return [...this.#records.values()].filter((record) => record.userId === userId).reverse();
  }

  async revoke(userId: number, selector: string): Promise<boolean> {
    const record = this.#records.get(selector);
    return record !== undefined && record.userId === userId && this.#records.delete(selector);
  }

  async revokeAll(userId: number): Promise<number> {
    let revoked = 0;
    for (const [selector, record] of this.#records) if (record.userId === userId && this.#records.delete(selector)) revoked++;
    return revoked;
  }

  async purgeExpired(now: number): Promise<number> {
    let purged = 0;
    for (const [selector, record] of this.#records) if (record.expiresAt <= now && this.#records.delete(selector)) purged++;
    return purged;
  }
}

/** The text every per-user token starts with, so a secret scanner (or a person) can tell one. */
export const API_TOKEN_PREFIX = "fwt_";

/** A token as its owner holds it: `fwt_<selector>.<verifier>`, both base64url (4 + 22 + 1 + 43 characters). */
const TOKEN = /^fwt_([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/** A fresh token and the record to save for it: the token itself is shown once, never kept. */
export function freshApiToken(fields: Omit<ApiTokenRecord, "selector" | "verifierHash" | "lastUsedAt">): { readonly token: string; readonly record: ApiTokenRecord } {
  const selector = randomBytes(16).toString("base64url");
  const verifier = randomBytes(32).toString("base64url");
  return { token: `${API_TOKEN_PREFIX}${selector}.${verifier}`, record: { ...fields, selector, verifierHash: verifierHashOf(verifier), lastUsedAt: undefined } };
}

/** A token's two halves, or undefined when the text is not one. */
export function tokenParts(token: string): { readonly selector: string; readonly verifierHash: string } | undefined {
  const parts = TOKEN.exec(token);
  if (parts === null) return undefined;
  const [, selector, verifier] = parts as unknown as [string, string, string];
  return { selector, verifierHash: verifierHashOf(verifier) };
}

function verifierHashOf(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}
