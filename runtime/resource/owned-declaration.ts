import type { Request } from "../http/request.js";
import type { GuardDeclaration } from "../routing/assemble.js";
import type { Action } from "./actions.js";
import type { ScopedStore } from "./scoped-store.js";

/**
 * What an `Owned` declaration gives a model's pages (spec 2.13), seen structurally so the core
 * never imports the auth module: a guard (its `actions` need a signed-in user) plus `covers`,
 * the roles that read and write through the current user's rows alone.
 */
export type OwnedDeclaration = GuardDeclaration & {
  readonly covers: { has(role: Action): boolean };
  /**
   * Who is looking, for display on a public page, answered at once: a declaration whose
   * `identify` answers later (asking a users store) gives this too; without it, `identify` is used
   * when it answers at once.
   */
  readonly viewer?: (request: Request) => string | undefined;
  /**
   * Told, as the model's routes are made, which model the declaration is on and its rows (its
   * scoped store): fw/auth asks them which models still hold a user's rows when that user asks
   * to delete their account. Optional: a declaration of another sign-in may leave it out.
   */
  readonly ownsRowsOf?: (model: { readonly name: string; readonly path: string }, rows: ScopedStore<unknown>) => void;
};
