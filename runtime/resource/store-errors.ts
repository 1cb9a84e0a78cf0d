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

/** A write gave a unique column a value another row already holds. Nothing was written. */
export class DuplicateValue extends Error {
  constructor(
    readonly table: string,
    /** The model field (column) whose value is taken. */
    readonly field: string,
  ) {
    super(`Another ${table} row already has this ${field}: the field "${field}" must be unique.`);
    this.name = "DuplicateValue";
  }
}
