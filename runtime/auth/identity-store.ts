/** A provider's account linked to a user: the provider's name and its stable subject (`sub`, GitHub's numeric id). */
export interface IdentityRecord {
  readonly provider: string;
  readonly subject: string;
  readonly userId: number;
  /** The email the provider gave when it was linked (shown on /account). */
  readonly email: string;
}

/**
 * Where linked provider accounts are kept: `InMemoryIdentities`, or fw/db's `fw_identities`
 * (`SqlUsers.identities()`). One (provider, subject) names one user; `link` must refuse a second.
 */
export interface IdentityStore {
  find(provider: string, subject: string): Promise<IdentityRecord | undefined>;
  /** The user's linked accounts. */
  list(userId: number): Promise<readonly IdentityRecord[]>;
  /** Links (provider, subject) to the user; false when it is linked already (to anyone). */
  link(record: IdentityRecord): Promise<boolean>;
  /** Unlinks the user's account at this provider; false when there was none. */
  unlink(userId: number, provider: string): Promise<boolean>;
}

/** Linked accounts in this process's memory (`InMemoryUsers`, tests). */
export class InMemoryIdentities implements IdentityStore {
  readonly #records = new Map<string, IdentityRecord>();

  async find(provider: string, subject: string): Promise<IdentityRecord | undefined> {
    const record = this.#records.get(`${provider} ${subject}`);
    return record === undefined ? undefined : { ...record };
  }

  async list(userId: number): Promise<readonly IdentityRecord[]> {
    return [...this.#records.values()].filter((record) => record.userId === userId);
  }

  async link(record: IdentityRecord): Promise<boolean> {
    const key = `${record.provider} ${record.subject}`;
    if (this.#records.has(key)) return false;
    this.#records.set(key, { ...record });
    return true;
  }

  async unlink(userId: number, provider: string): Promise<boolean> {
    for (const [key, record] of this.#records) if (record.userId === userId && record.provider === provider) return this.#records.delete(key);
    return false;
  }

  /** Forgets every account of the user (the user was deleted). */
  forget(userId: number): void {
    for (const [key, record] of this.#records) if (record.userId === userId) this.#records.delete(key);
  }
}
