/** The seven roles a derived route can play (spec 2.11), in emit order. */
export const Action = {
  Index: "Index",
  New: "New",
  Show: "Show",
  Edit: "Edit",
  Create: "Create",
  Update: "Update",
  Destroy: "Destroy",
} as const;
export type Action = (typeof Action)[keyof typeof Action];

/** The roles by name, for `Actions.only(Edit, Update)` and `Actions.except(Destroy)`. */
export const { Index, New, Show, Edit, Create, Update, Destroy } = Action;

/** Every role in the order derived routes are emitted (spec 4.2: New before Show). */
export const ACTION_ORDER: readonly Action[] = [Index, New, Show, Edit, Create, Update, Destroy];

/**
 * The roles one model mounts (spec 2.11). Used only for membership: emitting a route and
 * leaving out a control that would point at an unmounted one. Order never enters.
 */
export class Actions {
  private readonly roles: ReadonlySet<Action>;

  private constructor(roles: Iterable<Action>) {
    this.roles = new Set(roles);
  }

  /** All seven: the default when a model declares none. */
  static readonly all = new Actions(ACTION_ORDER);

  static only(...roles: readonly Action[]): Actions {
    return new Actions(roles);
  }

  /** All seven but these, subtracted by role: `Actions.except(Destroy)`. */
  static except(...roles: readonly Action[]): Actions {
    return Actions.all.except(...roles);
  }

  except(...roles: readonly Action[]): Actions {
    return new Actions([...this.roles].filter((role) => !roles.includes(role)));
  }

  has(role: Action): boolean {
    return this.roles.has(role);
  }

  toString(): string {
    return `Actions(${ACTION_ORDER.filter((role) => this.roles.has(role)).join(", ")})`;
  }
}
