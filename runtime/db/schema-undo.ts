import { quoteIdentifier as q } from "./identifier.js";
import type { SchemaChange } from "./schema-change.js";

/**
 * The down of a migration `db new` writes (issue 43): the SQL that undoes its changes, last
 * first. What adds is undone by dropping it (a table, a column with its constraints and
 * indexes, an index, a constraint); a NOT NULL change flips back; a type changes back to what it
 * was. What drops cannot bring the data back: its down is a statement that stops the rollback
 * with a message naming the change, to be replaced by hand (or left, when there is no going back).
 */
export function downSql(changes: readonly SchemaChange[]): string {
  return [...changes].reverse().map((change) => `-- undoes: ${change.table}: ${change.summary}\n${undoOf(change)}\n`).join("\n");
}

function undoOf(change: SchemaChange): string {
  const t = q(change.table);
  const column = change.column === undefined ? undefined : q(change.column);
  switch (change.kind) {
    case "create table":
      return `DROP TABLE ${t};`;
    case "add column":
      return `ALTER TABLE ${t} DROP COLUMN ${column};`;
    case "set not null":
      return `ALTER TABLE ${t} ALTER COLUMN ${column} DROP NOT NULL;`;
    case "drop not null":
      return `ALTER TABLE ${t} ALTER COLUMN ${column} SET NOT NULL;`;
    case "change type":
      return change.was === undefined ? cannot(change) : `ALTER TABLE ${t} ALTER COLUMN ${column} TYPE ${change.was} USING ${column}::${change.was};`;
    case "add index": {
      const name = /CREATE (?:UNIQUE )?INDEX ("(?:[^"]|"")+")/.exec(change.sql)?.[1];
      return name === undefined ? cannot(change) : `DROP INDEX ${name};`;
    }
    case "add foreign key":
    case "add unique": {
      const name = /ADD CONSTRAINT ("(?:[^"]|"")+")/.exec(change.sql)?.[1];
      return name === undefined ? cannot(change) : `ALTER TABLE ${t} DROP CONSTRAINT ${name};`;
    }
    default:
      return cannot(change);
  }
}

/** A statement that stops the rollback, saying what it cannot undo: the data a drop removed is gone. */
function cannot(change: SchemaChange): string {
  const what = `${change.table}: ${change.summary}`.replaceAll("'", "''").replaceAll("$", "");
  return `DO $$ BEGIN RAISE EXCEPTION 'fw: this migration cannot be rolled back as written: it %, which its down cannot undo (the data is gone). Write the SQL that undoes it here, or restore a backup.', '${what}'; END $$;`;
}
