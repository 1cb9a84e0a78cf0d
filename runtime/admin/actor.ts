import { AsyncLocalStorage } from "node:async_hooks";
import type { Actor } from "./audit-log.js";

/**
 * The admin a back-office request acts for, set by the back office's routes around their
 * handlers (after the role guard let them in): what an audited store's write records as its
 * "who". The derived pages the back office reuses write through a store with no request in
 * hand; this carries the request's admin to it.
 */
const acting = new AsyncLocalStorage<Actor>();

/** Runs `work` as `actor`'s: the audited writes it makes record them. */
export function actingAs<T>(actor: Actor, work: () => T): T {
  return acting.run(actor, work);
}

/** The admin the current back-office request acts for; throws outside one (an audited store written by other code). */
export function currentActor(): Actor {
  const actor = acting.getStore();
  if (actor === undefined) throw new Error("fw/admin: an audited store was written outside the back office's pages, so there is nobody to record as its author: write through the model's own store.");
  return actor;
}
