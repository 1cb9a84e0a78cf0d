import { createHash, randomBytes } from "node:crypto";

/**
 * A user's second factor (TOTP, RFC 6238) as a store keeps it: the shared secret (base32, what the
 * authenticator app holds too: it must be kept as it is to compute codes), whether it was
 * confirmed, the last time step a code was used at (a code is used once), and the SHA-256 of each
 * unused recovery code (never the codes).
 */
export interface SecondFactorRecord {
  readonly userId: number;
  readonly secret: string;
  /** False while it waits for its first code (the QR code was shown, not yet confirmed). */
  readonly enabled: boolean;
  /** The newest time step a code was accepted at (30 s each since 1970); 0 when none. */
  readonly lastStep: number;
  readonly recoveryHashes: readonly string[];
}

/**
 * Where second factors are kept: `InMemorySecondFactors`, or fw/db's `fw_second_factors` table
 * (`SqlUsers.secondFactors()`). `useStep` and `useRecoveryCode` must be atomic: of two concurrent
 * uses of one code, one wins.
 */
export interface SecondFactorStore {
  get(userId: number): Promise<SecondFactorRecord | undefined>;
  /** A new secret waiting for its first code; replaces one waiting, never an enabled one (false then). */
  begin(userId: number, secret: string): Promise<boolean>;
  /** The waiting secret confirmed at `step`, with these recovery codes' hashes; false when none was waiting. */
  enable(userId: number, step: number, recoveryHashes: readonly string[]): Promise<boolean>;
  /** Removes the user's second factor (and its recovery codes); false when there was none. */
  disable(userId: number): Promise<boolean>;
  /** Records a code used at `step`, when `step` is newer than the last one used: false when it is not (the code was used). */
  useStep(userId: number, step: number): Promise<boolean>;
  /** Deletes one recovery code by its hash: true for the one call that deleted it. */
  useRecoveryCode(userId: number, hash: string): Promise<boolean>;
}

/** Second factors in this process's memory (`InMemoryUsers`, tests). */
export class InMemorySecondFactors implements SecondFactorStore {
  readonly #records = new Map<number, SecondFactorRecord>();

  async get(userId: number): Promise<SecondFactorRecord | undefined> {
    const record = this.#records.get(userId);
    return record === undefined ? undefined : { ...record, recoveryHashes: [...record.recoveryHashes] };
  }

  async begin(userId: number, secret: string): Promise<boolean> {
    if (this.#records.get(userId)?.enabled === true) return false;
    this.#records.set(userId, { userId, secret, enabled: false, lastStep: 0, recoveryHashes: [] });
    return true;
  }

  async enable(userId: number, step: number, recoveryHashes: readonly string[]): Promise<boolean> {
    const record = this.#records.get(userId);
    if (record === undefined || record.enabled) return false;
    this.#records.set(userId, { ...record, enabled: true, lastStep: step, recoveryHashes: [...recoveryHashes] });
    return true;
  }

  async disable(userId: number): Promise<boolean> {
    return this.#records.delete(userId);
  }

  async useStep(userId: number, step: number): Promise<boolean> {
    const record = this.#records.get(userId);
    if (record === undefined || record.lastStep >= step) return false;
    this.#records.set(userId, { ...record, lastStep: step });
    return true;
  }

  async useRecoveryCode(userId: number, hash: string): Promise<boolean> {
    const record = this.#records.get(userId);
    if (record === undefined || !record.recoveryHashes.includes(hash)) return false;
    this.#records.set(userId, { ...record, recoveryHashes: record.recoveryHashes.filter((held) => held !== hash) });
    return true;
  }
}

/** How many recovery codes a second factor comes with. */
export const RECOVERY_CODES = 10;

/** Letters and digits a person cannot confuse (no 0/o, 1/l/i). */
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

/** Ten fresh recovery codes (`xxxxx-xxxxx`, about 49 bits each), shown once; store their hashes. */
export function freshRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const bytes = randomBytes(10);
    const letters = [...bytes].map((byte) => ALPHABET[byte % ALPHABET.length]).join("");
    return `${letters.slice(0, 5)}-${letters.slice(5)}`;
  });
}

/**
 * The hash a recovery code is kept and found by: SHA-256 of the code as typed with spaces and
 * dashes dropped, in lower case (a code is random: no slow hash is needed to keep it from guesses).
 */
export function recoveryCodeHash(code: string): string {
  return createHash("sha256").update(code.replace(/[\s-]/g, "").toLowerCase()).digest("base64url");
}
