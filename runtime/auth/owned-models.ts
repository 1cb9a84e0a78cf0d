import type { ScopedStore } from "../resource/scoped-store.js";
import { wordsOf } from "../resource/words.js";

/** One owned model as fw/auth knows it: its name in the plural ("time entries") and its rows. */
interface OwnedModel {
  readonly many: string;
  readonly rows: ScopedStore<unknown>;
}

/**
 * The app's models whose rows belong to users, declared `owned` with one sign-in, as their
 * routes were made (`Owned.ownsRowsOf`): the models that can still name a user. Asked when an
 * account cannot be deleted, to say which of the user's rows stand in the way.
 */
export class OwnedModels {
  readonly #models = new Map<string, OwnedModel>();

  /** Remembers a model (once by name: its routes may be made more than once). */
  add(model: { readonly name: string; readonly path: string }, rows: ScopedStore<unknown>): void {
    this.#models.set(model.name, { many: wordsOf(model).many.toLowerCase(), rows });
  }

  /**
   * The models (in the plural, in the order their routes were made) holding at least one row
   * whose owner is `userKey` (the key as a session spells it). A model whose store cannot answer
   * is left out: this only names what is in the way.
   */
  async holding(userKey: string): Promise<string[]> {
    const asked = [...this.#models.values()].map(async ({ many, rows }) => {
      try {
        const page = await rows.for(userKey).list({ offset: 0, limit: 1, countUpTo: 1 });
        return page.rows.length > 0 ? many : undefined;
      } catch {
        return undefined;
      }
    });
    return (await Promise.all(asked)).filter((many): many is string => many !== undefined);
  }
}
