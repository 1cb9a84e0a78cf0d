/**
 * What fw/auth's account pages need of the store that keeps the app's rows (issue 41: a user's
 * own data): which of them keep an account from being deleted, and "Download my data". fw/db's
 * `SqlUsers.accountData()` is one; fw/auth never imports fw/db (nor fw/jobs, which makes the
 * exports, nor fw/files, which keeps their archives).
 */
import type { Readable } from "node:stream";

export interface AccountData {
  /** The app's models, in the plural ("time entries"), holding rows that keep user `id` from being deleted (their rule is "restrict"). */
  holding(id: number): Promise<readonly string[]>;
  /** "Download my data", when this app can make exports (a job runner is registered); undefined otherwise. */
  exports(): AccountExports | undefined;
  /**
   * Tells `handler` of each export made in this process (by its job), to send its link; a
   * handler that throws fails the job, which is tried again (the export stays made).
   */
  onExportReady(handler: (made: MadeExport) => Promise<void>): void;
}

/** The exports of one users store: asked for, made by a job, downloaded once, removed at expiry. */
export interface AccountExports {
  /**
   * Asks for an export of user `userId`'s data; `page` is the path under which its download page
   * is mounted (`/account/data`, the export's id is added). One export at a time per user, and
   * one an hour: a request while one is being made joins it, one within the hour after one was
   * made is told when.
   */
  request(userId: number, page: string): Promise<ExportAsked>;
  /** The user's latest export still kept, for the account page. */
  latest(userId: number): Promise<ExportState | undefined>;
  /** Export `id` when it is user `userId`'s, made and not expired; undefined otherwise. */
  find(id: string, userId: number): Promise<ExportState | undefined>;
  /** Export `id`'s file, when it is user `userId`'s, made and not expired. */
  open(id: string, userId: number): Promise<ExportDownload | undefined>;
  /** Removes export `id` and its archive (downloaded: its link works once). */
  remove(id: string): Promise<void>;
}

/** What a request for an export came to. */
export type ExportAsked =
  | { readonly state: "queued" }
  | { readonly state: "pending"; readonly requestedAt: number }
  | { readonly state: "recent"; readonly readyAt: number; readonly expiresAt: number };

/** One export as its user may see it. */
export interface ExportState {
  readonly id: string;
  readonly requestedAt: number;
  /** When it was made; undefined while it is being made. */
  readonly readyAt?: number;
  readonly expiresAt?: number;
  /** Bytes to download, once made. */
  readonly size?: number;
}

/** An export its job just made: its link goes to the user. */
export interface MadeExport {
  readonly id: string;
  readonly userId: number;
  /** The path of its download page (`/account/data/<id>`): the link is this with its token. */
  readonly page: string;
  readonly expiresAt: number;
  readonly size: number;
  /** True for a zip of the JSON and the user's files; false for the JSON alone. */
  readonly zip: boolean;
}

/** An export's file, to send: its name, type and size, and its bytes. */
export interface ExportDownload {
  readonly name: string;
  readonly type: string;
  readonly size: number;
  open(): Promise<Readable>;
}
