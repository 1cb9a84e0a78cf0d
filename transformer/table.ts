import type * as ts from "typescript";
import { at, Codes, type Finding } from "./diagnostics.js";
import { pathSegment, type FieldShape, type ModelShape } from "./model-shape.js";
import type { Model } from "./models.js";
import type { Owner } from "./owner.js";

/**
 * A table model's table as the generated module gives it to fw/db (runtime/db/table.ts
 * TableSpec), derived from the model's fields at build time.
 */
export interface TableShape {
  readonly name: string;
  readonly key: { readonly field: string; readonly column: string };
  readonly columns: readonly ColumnShape[];
  readonly owner?: string;
  /** The model the table keeps the rows of (runtime/db/table.ts). */
  readonly model?: { readonly name: string; readonly path: string };
  /** Columns no two rows may share together (the companion's composite `unique`). */
  readonly unique?: readonly (readonly string[])[];
  /** Plain indexes the pages' queries need (a read scope's field and the key). */
  readonly indexes?: readonly (readonly string[])[];
  /** Full-text search: the searched columns, most important first, and their language (runtime/db/table.ts). */
  readonly search?: { readonly language: string; readonly columns: readonly string[] };
  /** Many-to-many (`tags: Id<Tag>[]`): each list field's join table (runtime/db/table.ts LinkSpec). */
  readonly links?: readonly LinkShape[];
}

/** A list field's join table: `posts_tags (post_id, tag_id)`, both foreign keys cascading. */
export interface LinkShape {
  readonly field: string;
  readonly table: string;
  /** The column holding this table's key (`post_id`). */
  readonly from: string;
  /** The column holding the listed row's key (`tag_id`). */
  readonly to: string;
  readonly target: { readonly table: string; readonly column: string };
}

export interface ColumnShape {
  readonly field: string;
  readonly column: string;
  readonly type: "text" | "double precision" | "bigint" | "boolean" | "date" | "timestamptz" | "jsonb";
  readonly nullable: boolean;
  readonly maxLength?: number;
  readonly asDate?: boolean;
  readonly references?: { readonly table: string; readonly column: string; readonly onDelete?: "cascade" | "set null" };
  readonly unique?: boolean;
  /** A file field's column: the model's path, where its rows' files are served (runtime/db/table.ts). */
  readonly fileAt?: string;
}

/** The table fw/db's `SqlUsers` keeps users in: what an owner column references. */
export const USERS_TABLE = "users";
/** fw/auth's teams table (runtime/db/sql-teams.ts), which a team field references. */
export const TEAMS_TABLE = "fw_teams";
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Reading {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly shown: (file: string) => string;
  readonly findings: Finding[];
}

/**
 * The `table` a model's companion declares: the string literal, undefined when there is none,
 * or null after a finding (not a literal the build can read, not a plain SQL name).
 */
export function tableOption(r: Reading, model: Model): string | undefined | null {
  for (const argument of model.call.arguments) {
    if (r.ts.isObjectLiteralExpression(argument)) {
      const property = argument.properties.find((p) => p.name !== undefined && p.name.getText() === "table");
      if (property === undefined) continue;
      const value = r.ts.isPropertyAssignment(property) ? property.initializer : undefined;
      if (value === undefined || !(r.ts.isStringLiteral(value) || r.ts.isNoSubstitutionTemplateLiteral(value))) {
        return fail(r, model, property, `the \`table\` of ${model.name} must be a string literal the build can read: table: "${defaultName(model.name)}".`);
      }
      if (!IDENTIFIER.test(value.text) || value.text.length > 63 || value.text.startsWith("fw_")) {
        return fail(r, model, value, `the table name ${JSON.stringify(value.text)} of ${model.name} is not a plain SQL name: letters, digits and _, not starting with a digit or fw_, at most 63 characters (e.g. "${defaultName(model.name)}").`);
      }
      return value.text;
    }
    if (r.checker.getTypeAtLocation(argument).getProperty("table") !== undefined) {
      return fail(r, model, argument, `the options of ${model.name} declare a \`table\` the build cannot read: write the options inline, derives<${model.name}>(…, { table: "${defaultName(model.name)}" }).`);
    }
  }
  return undefined;
}

/**
 * The table of a model declaring one: the key an identity, each form field a column of the
 * type its input kind stores (text and textarea `text`, a `maxLength` making it varchar(n);
 * number `double precision`; checkbox `boolean`; select `text`; date `date`; another model's
 * `Id` `bigint`), optional fields nullable, the owner a `bigint` foreign key to the users
 * table. Columns are the fields in snake_case; the owner's gets `_id` (`author` → `author_id`).
 */
export function tableOf(r: Reading, model: Model, name: string, shape: ModelShape, owner: Owner | undefined, team?: Owner): TableShape | undefined {
  const references = new Set(shape.references.map((ref) => ref.field));
  // A list of references (`tags: Id<Tag>[]`) is no column: its join table holds it (relations.ts).
  const columns: ColumnShape[] = shape.fields.filter((field) => field.input !== "references").map((field) => ({
    field: field.name,
    column: snake(field.name),
    type: columnType(field, references),
    nullable: field.optional,
    ...(field.maxLength === undefined || (field.input !== "text" && field.input !== "textarea") ? {} : { maxLength: field.maxLength }),
    // A date input is a `Date` field: read back as a Date, not the text PostgreSQL sends.
    ...(field.input === "date" && !isTimestamp(field) ? { asDate: true } : {}),
    ...(field.unique === true ? { unique: true } : {}),
    ...(field.input === "file" ? { fileAt: `/${pathSegment(model.name)}` } : {}),
  }));
  if (owner !== undefined) {
    const column = snake(owner.field);
    columns.push({ field: owner.field, column: column.endsWith("_id") ? column : `${column}_id`, type: "bigint", nullable: false, references: { table: USERS_TABLE, column: "id" } });
  }
  if (team !== undefined) {
    // A team's rows go with the team (fw_teams, fw's own table: runtime/db/sql-teams.ts).
    const column = snake(team.field);
    columns.push({ field: team.field, column: column.endsWith("_id") ? column : `${column}_id`, type: "bigint", nullable: false, references: { table: TEAMS_TABLE, column: "id", onDelete: "cascade" } });
  }
  const key = { field: shape.key, column: snake(shape.key) };
  const seen = new Set<string>();
  for (const column of [key, ...columns]) {
    if (!IDENTIFIER.test(column.column) || column.column.length > 63 || column.column.startsWith("fw_") || seen.has(column.column)) {
      fail(r, model, model.call, `the field ${JSON.stringify(column.field)} of ${model.name} would be the column ${JSON.stringify(column.column)} of the table ${name}, which ${seen.has(column.column) ? "another field already takes" : "is not a plain SQL name (letters, digits and _, not starting with fw_, at most 63 characters)"}. Rename the field.`);
      return undefined;
    }
    seen.add(column.column);
  }
  return { name, key, columns, ...(owner === undefined ? {} : { owner: owner.field }), model: { name: model.name, path: `/${pathSegment(model.name)}` } };
}

/** `publishedAt` → `published_at`, `HTMLTitle` → `html_title`. */
export function snake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2").toLowerCase();
}

/** `Post` → `posts`, `BlogPost` → `blog_posts`: what a message suggests. */
function defaultName(model: string): string {
  const s = snake(model);
  if (/[^aeiou]y$/.test(s)) return `${s.slice(0, -1)}ies`;
  return /(s|x|z|ch|sh)$/.test(s) ? `${s}es` : `${s}s`;
}

function fail(r: Reading, model: Model, node: ts.Node, message: string): null {
  r.findings.push({ code: Codes.tableOption, category: "error", file: model.call.getSourceFile(), ...at(node), message: `${r.shown(model.file)}: ${message}` });
  return null;
}

/** createdAt / updatedAt hold an instant (`timestamptz`, read back as a Date by the driver), not a day. */
function isTimestamp(field: FieldShape): boolean {
  return field.serverSet === "createdAt" || field.serverSet === "updatedAt";
}

function columnType(field: FieldShape, references: ReadonlySet<string>): ColumnShape["type"] {
  if (references.has(field.name)) return "bigint";
  if (isTimestamp(field)) return "timestamptz";
  if (field.input === "file") return "jsonb"; // the stored file: key, name, type, size, checksum (issue 40)
  return field.input === "number" ? "double precision" : field.input === "checkbox" ? "boolean" : field.input === "date" ? "date" : "text";
}
