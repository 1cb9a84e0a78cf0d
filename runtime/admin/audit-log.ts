import type { Page } from "../resource/query.js";

/**
 * What an admin did: a row made, changed or deleted; a role granted or revoked; an account
 * locked, unlocked or signed out everywhere; a team member's role changed, or a member removed.
 */
export type AuditAction = "create" | "update" | "delete" | "grant" | "revoke" | "lock" | "unlock" | "sign-out" | "member-role" | "member-remove";

/** Who did it: the admin's key and their email then. */
export interface Actor {
  readonly id: number;
  readonly email: string;
}

/** A field's value as the log keeps it: JSON (a time as ISO text, a file as its name, type, size and key). */
export type AuditValue = string | number | boolean | null | readonly AuditValue[] | { readonly [field: string]: AuditValue };

/**
 * One admin write as the back office records it: who, what (the model, or `User`, and the row's
 * key), and the row before and after as JSON (absent before a create and after a delete). Never
 * a password hash, a session epoch or any other secret: a row is recorded by its model's fields
 * alone, a user by their email, roles and lock.
 */
export interface AuditRecord {
  readonly actor: Actor;
  readonly action: AuditAction;
  /** The model's name (`Post`), `User` for an account, `Team` for a team's member. */
  readonly model: string;
  /** The row's key, as text. */
  readonly key: string;
  readonly before?: { readonly [field: string]: AuditValue };
  readonly after?: { readonly [field: string]: AuditValue };
}

/** A record as the log keeps it: numbered (newest highest) and timed. */
export interface AuditEntry extends AuditRecord {
  readonly id: number;
  readonly at: Date;
}

/** Which entries `list` answers, newest first: all, or those of one model (and row), or one admin's. */
export interface AuditQuery {
  readonly offset: number;
  readonly limit: number;
  readonly model?: string;
  readonly key?: string;
  readonly actor?: number;
  /** As `ListPage.countUpTo`: `total` may stop there. */
  readonly countUpTo?: number;
}

/** A store (or a users store) as a write reaches it: joined to the write's transaction when it can be, else itself. */
export type Join = <S extends object>(store: S) => Promise<S>;

/** What an audited write answers: its result, the record to keep (none when it changed nothing), and what to do once it is kept. */
export interface Audited<T> {
  readonly result: T;
  readonly record?: AuditRecord;
  /** Runs once the write and its record are kept (sessions ended, sockets closed in every process); never when they are not. */
  readonly after?: () => void;
}

/**
 * Where the back office keeps its audit log (issue 41). `write` runs a change and keeps its
 * record: on a database (fw/db's `SqlAuditLog`, the `fw_audit` table) both in one transaction,
 * the change reaching the stores through `join`, so there is never a change without its record
 * nor a record of a change that did not happen; in memory (`InMemoryAuditLog`), one after the other.
 */
export interface AuditLog {
  write<T>(work: (join: Join) => Promise<Audited<T>>): Promise<T>;
  list(query: AuditQuery): Promise<Page<AuditEntry>>;
}

/**
 * The audit log in memory, for an app without a database: kept for the life of the process,
 * like the rows it records. A write runs, then its record is added (the stores it reaches are
 * in memory too: there is no transaction to share).
 */
export class InMemoryAuditLog implements AuditLog {
  readonly #entries: AuditEntry[] = [];

  async write<T>(work: (join: Join) => Promise<Audited<T>>): Promise<T> {
    const done = await work(async (store) => store);
    if (done.record !== undefined) this.#entries.push({ ...structuredClone(done.record), id: this.#entries.length + 1, at: new Date() });
    done.after?.();
    return done.result;
  }

  async list(query: AuditQuery): Promise<Page<AuditEntry>> {
    const matching = this.#entries.filter(
      (entry) => (query.model === undefined || entry.model === query.model) && (query.key === undefined || entry.key === query.key) && (query.actor === undefined || entry.actor.id === query.actor),
    );
    const newest = matching.reverse();
    return { rows: newest.slice(query.offset, query.offset + query.limit).map((entry) => structuredClone(entry)), total: newest.length };
  }
}
