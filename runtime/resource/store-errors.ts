/**
 * What a store's write may refuse, as the resource layer will answer it: a row changed since
 * the form was read (409, the form re-rendered) and a value a unique column already holds
 * (422, the message beside the field). They live beside the `Store` contract, not in fw/db,
 * so the core can recognise them without importing the database module.
 */

/**
 * An update named the version of the row it was based on, and the row has moved on since
 * (someone else saved it first), or was deleted. Nothing was written.
 */
export class Conflict extends Error {
  constructor(
    /** The model's table. */
    readonly table: string,
    readonly key: unknown,
    /** The version the update was based on. */
    readonly expected: number,
    /** The row's version now; undefined when the row is gone. */
    readonly actual: number | undefined,
  ) {
    super(
      actual === undefined
        ? `The ${table} row ${String(key)} was deleted after version ${expected} was read: nothing was written.`
        : `The ${table} row ${String(key)} changed (version ${expected} was read, it is now at ${actual}): nothing was written. Read it again and reapply the change.`,
    );
    this.name = "Conflict";
  }
}

/**
 * A write gave a unique column a value another row already holds (or, for a unique of several
 * fields, the same values together). Nothing was written.
 */
export class DuplicateValue extends Error {
  constructor(
    readonly table: string,
    /** The model field (column) whose value is taken: the first of `fields`. */
    readonly field: string,
    /** Every field of the unique that was hit (one, or several for a composite unique). */
    readonly fields: readonly string[] = [field],
  ) {
    super(
      fields.length > 1
        ? `Another ${table} row already has these ${fields.join(", ")}: the fields ${fields.map((f) => `"${f}"`).join(", ")} must be unique together.`
        : `Another ${table} row already has this ${field}: the field "${field}" must be unique.`,
    );
    this.name = "DuplicateValue";
  }
}

/**
 * A write named, in a reference field, a row that does not exist (never did, or was deleted
 * meanwhile). Nothing was written. Pages answer it 422 beside the field.
 */
export class MissingReference extends Error {
  constructor(
    /** The table (or model) written to. */
    readonly table: string,
    /** The reference field. */
    readonly field: string,
    /** The key it named. */
    readonly key: unknown,
  ) {
    super(`The ${table} row names in "${field}" the key ${String(key)}, which no row has: nothing was written.`);
    this.name = "MissingReference";
  }
}

/**
 * A delete of a row that other rows still point at through a reference whose rule is
 * `restrict`. Nothing was deleted. Pages answer it 409, naming what still points at the row.
 */
export class StillReferenced extends Error {
  constructor(
    /** The table (or model) the row was to be deleted from. */
    readonly table: string,
    readonly key: unknown,
    /** The tables (or models) and reference fields whose rows still point at it. */
    readonly by: readonly { readonly table: string; readonly field: string }[],
  ) {
    super(`The ${table} row ${String(key)} is still referenced (from ${by.map((b) => `${b.table}.${b.field}`).join(", ") || "another table"}): nothing was deleted.`);
    this.name = "StillReferenced";
  }
}
