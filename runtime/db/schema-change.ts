import { createHash } from "node:crypto";
import type { ColumnSpec } from "./table.js";

/** What one change does to the schema. */
export type ChangeKind =
  | "create table"
  | "drop table"
  | "add column"
  | "drop column"
  | "change type"
  | "set not null"
  | "drop not null"
  | "add foreign key"
  | "change foreign key"
  | "drop foreign key"
  | "add unique"
  | "drop unique"
  | "add index";

/**
 * A value the rows already there must get: a new required column on a table with rows, or a
 * column made required that holds NULLs. fw never picks one (an empty text or a 0 can be wrong
 * for the model: a union of words, a reference); the drift page asks for it and `db new` writes
 * a migration that stops until it is edited.
 */
export interface FillQuestion {
  /** The drift page's form field that carries the value: `fill.posts.subtitle`. */
  readonly name: string;
  readonly column: ColumnSpec;
  /** How many rows get it: every row (a new column), or those holding NULL (a column made required). */
  readonly rows: number;
  /** The value as it was posted, shown again when the page comes back. */
  readonly given?: string;
  /**
   * The change's SQL while no value is chosen, as `db new` writes it: a statement that stops the
   * migration with a message saying what to choose, then the statements to edit.
   */
  readonly template: string;
}

/** One difference between the tables the models derive and the database, and the SQL that removes it. */
export interface SchemaChange {
  readonly kind: ChangeKind;
  readonly table: string;
  /** The column, for a change of one column (its type, its foreign key, its unique, its index). */
  readonly column?: string;
  /** What the database has now (`character varying(80)`, `NULL allowed`), for a changed column. */
  readonly was?: string;
  /** What the models want. */
  readonly wanted?: string;
  /** In words, for the drift page and the terminal. */
  readonly summary: string;
  /** The statements, each ending with `;`. */
  readonly sql: string;
  /** Why the change can lose data that is there now; undefined when it cannot. */
  readonly destructive?: string;
  /**
   * Why the change cannot apply to this database as it stands (rows that would break a foreign
   * key or a unique, a value not chosen or not valid): Sync and Freeze refuse it.
   */
  readonly refused?: string;
  /** The value the rows already there get, asked on the drift page. */
  readonly asks?: FillQuestion;
}

/** Every change, in the order they apply, and the script that applies them. */
export interface SchemaDrift {
  readonly changes: readonly SchemaChange[];
  /** The changes' SQL, one commented block per change: what Sync runs and Freeze writes. */
  readonly sql: string;
  readonly destructive: boolean;
  /** Some change is refused: Sync and Freeze apply nothing until it is resolved. */
  readonly refused: boolean;
  /**
   * A short hash of the changes as the page shows them before any value is typed: a form posted
   * from a page that showed other changes is refused.
   */
  readonly fingerprint: string;
}

/** The drift made of `changes`: its script and fingerprint. */
export function driftOf(changes: readonly SchemaChange[]): SchemaDrift {
  const header = (change: SchemaChange): string => `-- ${change.table}: ${change.summary}${change.destructive === undefined ? "" : ` (destructive: ${change.destructive})`}`;
  // A refusal that is not about a value goes into the file too: the statement fails where the rows are as here.
  const failing = (change: SchemaChange): string => (change.refused === undefined || change.asks !== undefined ? "" : `\n-- fails on this database as it is: ${change.refused}`);
  const sql = changes.map((change) => `${header(change)}${failing(change)}\n${change.sql.trimEnd()}\n`).join("\n");
  const shown = changes.map((change) => `${header(change)}\n${(change.asks?.template ?? change.sql).trimEnd()}\n`).join("\n");
  return {
    changes,
    sql,
    destructive: changes.some((change) => change.destructive !== undefined),
    refused: changes.some((change) => change.refused !== undefined),
    fingerprint: createHash("sha256").update(shown).digest("hex").slice(0, 16),
  };
}

/** A migration name for the changes: `add_subtitle_to_posts`, `create_posts`, `update_posts_notes`. */
export function migrationName(changes: readonly SchemaChange[]): string {
  const only = changes.length === 1 ? changes[0] : undefined;
  if (only !== undefined) {
    switch (only.kind) {
      case "create table":
        return `create_${only.table}`;
      case "drop table":
        return `drop_${only.table}`;
      case "add column":
        return `add_${only.column}_to_${only.table}`;
      case "drop column":
        return `drop_${only.column}_from_${only.table}`;
      default:
        return only.column === undefined ? `update_${only.table}` : `change_${only.column}_of_${only.table}`;
    }
  }
  // A new column with its foreign key, unique or index: named for the column.
  const added = changes.find((change) => change.kind === "add column");
  if (added !== undefined && changes.every((change) => change.table === added.table && change.column === added.column)) return `add_${added.column}_to_${added.table}`;
  const tables = [...new Set(changes.map((change) => change.table))];
  return `update_${tables.slice(0, 3).join("_")}${tables.length > 3 ? "_and_more" : ""}`.slice(0, 60);
}
