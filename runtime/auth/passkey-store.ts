/** A passkey (a WebAuthn credential) of a user, as a store keeps it: its id, public key and signature counter. */
export interface PasskeyRecord {
  /** The credential's id (base64url), as the authenticator gives it. */
  readonly id: string;
  readonly userId: number;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  /** The signature counter last seen (0 for authenticators that keep none). */
  readonly counter: number;
  /** How the browser may reach the authenticator (`internal`, `usb`, `hybrid`, …). */
  readonly transports: readonly string[];
  readonly name: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | undefined;
}

/**
 * Where passkeys are kept: `InMemoryPasskeys`, or fw/db's `fw_passkeys` (`SqlUsers.passkeys()`),
 * read on every passkey sign-in (a removed one stops working at once in every process).
 * `use` must be atomic: of two sign-ins with one counter value, one wins.
 */
export interface PasskeyStore {
  /** Saves a new passkey; false when its id is known already. */
  add(record: PasskeyRecord): Promise<boolean>;
  find(id: string): Promise<PasskeyRecord | undefined>;
  list(userId: number): Promise<readonly PasskeyRecord[]>;
  /** Removes the user's passkey; false when the user has none such. */
  remove(userId: number, id: string): Promise<boolean>;
  /**
   * Records a sign-in with the passkey at `counter`: true when the counter moved forward (or the
   * authenticator keeps none: 0 then and before). False for a counter that did not (a cloned
   * authenticator, a replayed assertion).
   */
  use(id: string, counter: number, now: number): Promise<boolean>;
}

/** Passkeys in this process's memory (`InMemoryUsers`, tests). */
export class InMemoryPasskeys implements PasskeyStore {
  readonly #records = new Map<string, PasskeyRecord>();

  async add(record: PasskeyRecord): Promise<boolean> {
    if (this.#records.has(record.id)) return false;
    this.#records.set(record.id, { ...record, transports: [...record.transports] });
    return true;
  }

  async find(id: string): Promise<PasskeyRecord | undefined> {
    const record = this.#records.get(id);
    return record === undefined ? undefined : { ...record };
  }

  async list(userId: number): Promise<readonly PasskeyRecord[]> {
    return [...this.#records.values()].filter((record) => record.userId === userId);
  }

  async remove(userId: number, id: string): Promise<boolean> {
    const record = this.#records.get(id);
    return record !== undefined && record.userId === userId && this.#records.delete(id);
  }

  async use(id: string, counter: number, now: number): Promise<boolean> {
    const record = this.#records.get(id);
    if (record === undefined || !(counter > record.counter || (counter === 0 && record.counter === 0))) return false;
    this.#records.set(id, { ...record, counter, lastUsedAt: now });
    return true;
  }

  /** Forgets every passkey of the user (the user was deleted). */
  forget(userId: number): void {
    for (const [id, record] of this.#records) if (record.userId === userId) this.#records.delete(id);
  }
}
