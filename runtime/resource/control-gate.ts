import type { Request } from "../http/request.js";
import type { Action } from "./actions.js";

/** What a model's derived pages read of its guard to show controls: the roles it covers, and whom it admits. */
export interface GuardDisplay {
  /** The roles the guard covers (all when absent). */
  readonly actions?: { has(role: never): boolean } | undefined;
  /** Whether the request's viewer would get past the guard; absent: whoever it is. */
  readonly admits?: ((request: Request) => boolean | Promise<boolean>) | undefined;
}

/** The controls a derived page shows: links to these roles' pages. */
export type Control = Extract<Action, "New" | "Edit" | "Destroy">;

/**
 * Which of a model's controls (New, Edit, Delete) its guard lets this viewer use, for display
 * only (issue 41: a page shows only the controls the viewer may use): a guard that covers the
 * control's role and says whom it admits (`auth.role("admin", …)`) is asked once per request,
 * before the page renders (`ask`); the answer is read as the rows are written (`lets`). The
 * guard still refuses at the page whoever follows a link they were not shown.
 */
export class ControlGate {
  /** The guard's answer for each request asked (weak: gone with the request). */
  readonly #answers = new WeakMap<Request, boolean>();

  constructor(private readonly guard: GuardDisplay | undefined) {}

  /** The gate of a model whose guard admits everyone it does not refuse at the page. */
  static readonly open = new ControlGate(undefined);

  /** Asks the guard for this request's viewer, when a control depends on it; at once otherwise. */
  ask(request: Request): void | Promise<void> {
    const admits = this.guard?.admits;
    if (admits === undefined || this.#answers.has(request)) return;
    const answer = admits(request);
    if (typeof answer === "boolean") {
      this.#answers.set(request, answer);
      return;
    }
    return answer.then((admitted) => void this.#answers.set(request, admitted));
  }

  /**
   * Whether `control` is shown to this request's viewer: yes when the guard does not cover its
   * role or admits whoever it is; else the guard's answer, and no when it was never asked (a
   * control hidden by mistake is a missing link, one shown by mistake a page that refuses).
   */
  lets(request: Request, control: Control): boolean {
    const guard = this.guard;
    if (guard?.admits === undefined) return true;
    const covers = guard.actions === undefined || (guard.actions.has as (role: string) => boolean)(control);
    return !covers || this.#answers.get(request) === true;
  }
}
