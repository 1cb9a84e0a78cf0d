import type * as ts from "typescript";
import { at, Codes, type Finding } from "./diagnostics.js";
import type { Derived } from "./emit.js";
import { humanise, pathSegment, type FieldShape } from "./model-shape.js";
import type { Model } from "./models.js";
import { snake, USERS_TABLE, type ColumnShape, type LinkShape, type TableShape } from "./table.js";

/** What deleting a referenced row does (runtime/resource/types.ts `OnDelete`). */
export type OnDelete = "restrict" | "cascade" | "set null";
const RULES: readonly OnDelete[] = ["restrict", "cascade", "set null"];

export interface Relating {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly shown: (file: string) => string;
  readonly findings: Finding[];
}

/** A companion's relation options as the build reads them: literals only. */
interface Declared {
  readonly onDelete: ReadonlyMap<string, { readonly rule: OnDelete; readonly node: ts.Node }>;
  readonly readableWith?: { readonly field: string; readonly node: ts.Node };
  readonly unique: readonly { readonly fields: readonly string[]; readonly node: ts.Node }[];
  /** The read scope's field (`publicWhen: "published"`), when written as a literal: the build indexes it. */
  readonly publicWhen?: string;
  /** The Index's own order (`sort: "-createdAt"`). */
  readonly sort?: { readonly field: string; readonly descending: boolean; readonly node: ts.Node };
  /** The searchable fields (`search: ["title", "body"]`) and their language. */
  readonly search?: { readonly fields: readonly { readonly name: string; readonly node: ts.Node }[]; readonly node: ts.Node };
  readonly searchLanguage?: { readonly language: string; readonly node: ts.Node };
}

/**
 * The second pass over the derived models, once every model is known: a field `Id<M>` (not the
 * owner) where M is another derived model of the same storage becomes a reference (a picker in
 * forms, a link on pages, a foreign key `post_id` for a table model, with the companion's
 * `onDelete` rule); `readableWith` and `unique` are checked against the fields. Mistakes are
 * findings naming the model, the field and the fix; the models come back with what was read.
 */
export function relate(r: Relating, derived: readonly Derived[], refused: ReadonlySet<string> = new Set()): Derived[] {
  const byName = new Map(derived.map((d) => [d.model.name, d]));
  // The app's user model(s): what the owners of its models point at (`author: Id<User>`).
  const users = new Set(derived.flatMap((d) => (d.owner === undefined || byName.has(d.owner.model) ? [] : [d.owner.model])));
  const related = derived.flatMap((d) => {
    const before = r.findings.length;
    const one = relateOne(r, d, byName, refused, users);
    // A model with a mistake gets no routes (its diagnostic says why), as for its other mistakes:
    // the generated module is then free of errors of its own.
    return r.findings.slice(before).some((f) => f.category === "error") ? [] : [one];
  });
  const relatedNames = new Set(related.map((d) => d.model.name));
  const kept = withoutRefusedTargets(related, new Set([...refused, ...derived.map((d) => d.model.name).filter((name) => !relatedNames.has(name))]));
  const circling = readableCircles(r, kept);
  return kept.filter((d) => !circling.has(d.model.name));
}

/**
 * The models left once those pointing at a refused model are held back too, and those pointing
 * at them, and so on (issue 39 item 10): a reference to a model with no routes and no table would
 * fail at boot, and the refused model's diagnostic already says what to fix. Held back silently.
 */
function withoutRefusedTargets(related: readonly Derived[], refused: ReadonlySet<string>): Derived[] {
  const out = new Set(refused);
  let kept = [...related];
  for (let changed = true; changed; ) {
    const next = kept.filter((d) => !d.shape.fields.some((f) => f.reference !== undefined && out.has(f.reference.model)) && !d.shape.lists.some((l) => out.has(l.model)));
    changed = next.length !== kept.length;
    kept.filter((d) => !next.includes(d)).forEach((d) => out.add(d.model.name));
    kept = next;
  }
  return kept;
}

/**
 * The models whose `readableWith` leads back to themselves (Comment reads with its Post, which
 * reads with its Comment): no row could ever be read. Each gets TS91042 naming the circle.
 */
function readableCircles(r: Relating, derived: readonly Derived[]): Set<string> {
  const next = new Map<string, string>();
  for (const d of derived) {
    const field = d.shape.readableWith;
    const target = field === undefined ? undefined : d.shape.fields.find((f) => f.name === field)?.reference?.model;
    if (target !== undefined) next.set(d.model.name, target);
  }
  const circling = new Set<string>();
  for (const d of derived) {
    const path = [d.model.name];
    for (let cursor = next.get(d.model.name); cursor !== undefined && path.length <= next.size; cursor = next.get(cursor)) {
      if (cursor !== d.model.name) {
        path.push(cursor);
        continue;
      }
      circling.add(d.model.name);
      const call = d.model.call;
      r.findings.push({
        code: Codes.readableWithField,
        category: "error",
        file: call.getSourceFile(),
        ...at(call),
        message: `${r.shown(d.model.file)}: the readableWith declarations make a circle (${[...path, d.model.name].join(" → ")}): a row readable only through a row that is readable only through it could never be read. Drop readableWith from one of these models.`,
      });
      break;
    }
  }
  return circling;
}

function relateOne(r: Relating, d: Derived, byName: ReadonlyMap<string, Derived>, refused: ReadonlySet<string>, users: ReadonlySet<string>): Derived {
  const declared = readDeclared(r, d.model);
  const references = new Map<string, FieldShape["reference"] & object>();
  const userRefs = new Map<string, OnDelete>();
  for (const ref of d.shape.references) {
    if (ref.field === d.owner?.field || ref.field === d.team?.field) continue;
    const target = byName.get(ref.model);
    if (target === undefined && d.table !== undefined && users.has(ref.model)) {
      if (userRelation(r, d, ref.field, ref.model)) userRefs.set(ref.field, declared.onDelete.get(ref.field)?.rule ?? "restrict");
      continue;
    }
    if (target === undefined && refused.has(ref.model)) {
      // A reference to a model refused for a mistake of its own (its storage unknown): read as a
      // reference, so this model's own options are checked against it; relate holds the model back.
      references.set(ref.field, { model: ref.model, path: `/${pathSegment(ref.model)}`, onDelete: declared.onDelete.get(ref.field)?.rule ?? "restrict" });
      continue;
    }
    if (target === undefined || (target.table === undefined) !== (d.table === undefined)) {
      // A memory model's key of something that is not a derived model stays a number, as before.
      if (target === undefined && d.table === undefined) continue;
      report(r, d.model, fieldNode(r, d.model, ref.field), Codes.referenceStorage, storageMessage(r, d, ref.field, ref.model, target));
      continue;
    }
    const onDelete = declared.onDelete.get(ref.field)?.rule ?? "restrict";
    references.set(ref.field, { model: ref.model, path: `/${pathSegment(ref.model)}`, onDelete });
  }
  const lists = readLists(r, d, byName, refused);
  const fields = d.shape.fields.map((field): FieldShape => {
    const listed = lists.get(field.name);
    if (listed !== undefined) return { ...field, describe: `a list of ${humanise(pathSegment(listed.model)).toLowerCase()}`, reference: listed };
    // A user named beside the owner (issue 41): set by the app's code, never by a form, kept on Update.
    if (userRefs.has(field.name)) return { ...field, serverSet: "readOnly" };
    const reference = references.get(field.name);
    if (reference === undefined) return field;
    // A reference is read as a key by the picker (runtime/resource/picker.ts keyText), not as a number field.
    const { integer: _read, ...rest } = field;
    return { ...rest, input: "reference", describe: withArticle(humanise(reference.model).toLowerCase()), reference };
  });
  checkOnDelete(r, d, declared, fields, userRefs);
  const ownerRule = ownerOnDelete(r, d, declared);
  const readableWith = checkReadableWith(r, d, declared, references);
  const unique = checkUnique(r, d, declared, fields);
  const sort = checkSort(r, d, declared, fields);
  const search = checkSearch(r, d, declared, fields);
  const shape = { ...d.shape, fields, ...(unique.length === 0 ? {} : { unique }), ...(readableWith === undefined ? {} : { readableWith }), ...(sort === undefined ? {} : { sort }), ...(search === undefined ? {} : { search }) };
  const withReferences = d.table === undefined ? undefined : tableWithReferences(r, d, d.table, { references, users: userRefs }, byName, unique, declared.publicWhen, { ownerRule, sort, search });
  const table = withReferences === undefined ? undefined : withLinks(r, d, withReferences, lists, byName);
  return { ...d, shape, ...(table === undefined ? {} : { table }) };
}

/**
 * The list fields (`tags: Id<Tag>[]`, many-to-many, issue 43) whose model is a derived model of
 * the same storage as this one: each a reference whose rule is `cascade` (deleting a tag takes it
 * out of every list; deleting the post, its links). Any other list is TS91114 at the field.
 */
function readLists(r: Relating, d: Derived, byName: ReadonlyMap<string, Derived>, refused: ReadonlySet<string>): Map<string, NonNullable<FieldShape["reference"]>> {
  const out = new Map<string, NonNullable<FieldShape["reference"]>>();
  for (const list of d.shape.lists) {
    const target = byName.get(list.model);
    const reference = { model: list.model, path: `/${pathSegment(list.model)}`, onDelete: "cascade" as const };
    if (target === undefined && refused.has(list.model)) {
      out.set(list.field, reference); // relate holds the model back: the refused model's own diagnostic says why
      continue;
    }
    if (target === undefined || (target.table === undefined) !== (d.table === undefined)) {
      report(r, d.model, fieldNode(r, d.model, list.field), Codes.referenceList, listMessage(d, list.field, list.model, target));
      continue;
    }
    out.set(list.field, reference);
  }
  return out;
}

function listMessage(d: Derived, field: string, target: string, found: Derived | undefined): string {
  const at = `the field \`${field}: Id<${target}>[]\` of ${d.model.name} lists rows of ${target}`;
  if (found === undefined) {
    return `${at}, which is not a derived model (no derives<${target}>(…, Resource${d.table === undefined ? "" : ", { table: … }"})), so fw has no rows to list${d.table === undefined ? "" : " nor a table for the join table's foreign key"}. Derive ${target} as a model${d.table === undefined ? "" : " with a table"}, or make the field a plain \`number[]\`.`;
  }
  return d.table !== undefined
    ? `${at}, which has no table, while ${d.model.name}'s rows are in the table ${d.table.name}: a list joins two models of the same storage (a join table of two foreign keys). Give ${target} a table (derives<${target}>(…, { table: "${snake(pathSegment(target)).replace(/-/g, "_")}" })).`
    : `${at}, whose rows are in the table ${found.table?.name}, while ${d.model.name}'s are in memory: a list joins two models of the same storage. Give ${d.model.name} a table too.`;
}

/**
 * A table model's list fields as join tables (`LinkShape`): `<table>_<field>` (`posts_tags`),
 * holding `<model>_id` and `<target>_id` (`post_id`, `tag_id`; a list of its own model's rows
 * names the second after the field: `related_id`). A name past 63 characters, or one another
 * model's table takes, is TS91114 naming the field.
 */
function withLinks(r: Relating, d: Derived, table: TableShape, lists: ReadonlyMap<string, NonNullable<FieldShape["reference"]>>, byName: ReadonlyMap<string, Derived>): TableShape | undefined {
  const links: LinkShape[] = [];
  const tables = new Set([...byName.values()].flatMap((other) => (other.table === undefined ? [] : [other.table.name])));
  for (const [field, reference] of lists) {
    const target = byName.get(reference.model)?.table;
    if (target === undefined) continue;
    const name = `${table.name}_${snake(field)}`;
    const from = `${snake(d.model.name)}_id`;
    const own = `${snake(reference.model)}_id`;
    const to = own === from ? `${snake(field)}_id` : own;
    const problem = name.length > 63 ? "is longer than 63 characters" : tables.has(name) ? "another model's table already takes" : to === from ? `would hold two columns named ${from}` : undefined;
    if (problem !== undefined) {
      report(r, d.model, fieldNode(r, d.model, field), Codes.referenceList, `the list \`${field}\` of ${d.model.name} would be kept in the join table ${JSON.stringify(name)}, which ${problem}. Rename the field (or the table of ${d.model.name}).`);
      return undefined;
    }
    links.push({ field, table: name, from, to, target: { table: target.name, column: target.key.column } });
  }
  return links.length === 0 ? table : { ...table, links };
}

/** `post` → "a post", `entry` → "an entry": how messages name one row. */
function withArticle(words: string): string {
  return `${/^[aeiou]/.test(words) ? "an" : "a"} ${words}`;
}

function storageMessage(r: Relating, d: Derived, field: string, target: string, found: Derived | undefined): string {
  const at = `the field \`${field}: Id<${target}>\` of ${d.model.name}`;
  if (found === undefined) {
    return `${at} points at ${target}, which is not a model with a table (no derives<${target}>(…, Resource, { table: … })), so fw cannot make its foreign key. Give ${target} a table, or make the field a plain \`number\`.`;
  }
  return d.table !== undefined
    ? `${at} points at ${target}, which has no table, while ${d.model.name}'s rows are in the table ${d.table.name}: a reference joins two models of the same storage. Give ${target} a table (derives<${target}>(…, { table: "${snake(pathSegment(target)).replace(/-/g, "_")}" })).`
    : `${at} points at ${target}, whose rows are in the table ${found.table?.name}, while ${d.model.name}'s are in memory: a reference joins two models of the same storage. Give ${d.model.name} a table too.`;
}

/**
 * A field `Id<User>` beside the owner, of a table model (issue 41: a plain relation to the users,
 * `reviewer`): a foreign key to the users table with its `onDelete` rule, never in a form (anyone
 * could name anyone), so `readonly` and optional, set by the app's code. False after a finding.
 */
function userRelation(r: Relating, d: Derived, field: string, user: string): boolean {
  const type = r.checker.getTypeFromTypeNode(d.model.call.typeArguments?.[0] as ts.TypeNode);
  const property = type.getProperty(field);
  const declaration = property?.valueDeclaration;
  const readonly = declaration !== undefined && (r.ts.getCombinedModifierFlags(declaration) & r.ts.ModifierFlags.Readonly) !== 0;
  const optional = property !== undefined && (property.flags & r.ts.SymbolFlags.Optional) !== 0;
  if (readonly && optional) return true;
  report(
    r,
    d.model,
    fieldNode(r, d.model, field),
    Codes.referenceStorage,
    `the field \`${field}: Id<${user}>\` of ${d.model.name} names a user beside its owner: no form may set it (anyone could name anyone), so your code does. Make it \`readonly ${field}?: Id<${user}>\`, and say in onDelete what deleting that user does (restrict by default, "set null", "cascade").`,
  );
  return false;
}

/** Every `onDelete` entry names a reference field (or a user relation); `set null` only an optional one. */
function checkOnDelete(r: Relating, d: Derived, declared: Declared, fields: readonly FieldShape[], users: ReadonlyMap<string, OnDelete>): void {
  for (const [name, { rule, node }] of declared.onDelete) {
    if (name === d.owner?.field || users.has(name)) continue; // the owner's rule: ownerOnDelete; a user relation is optional
    const field = fields.find((f) => f.name === name);
    if (field?.reference === undefined) {
      const refs = fields.filter((f) => f.reference !== undefined).map((f) => f.name);
      report(r, d.model, node, Codes.onDeleteField, `the onDelete of ${d.model.name} names \`${name}\`, which is not a reference field (a field typed Id<…> of another derived model)${refs.length === 0 ? `: ${d.model.name} has none` : `: its references are ${refs.join(", ")}`}. Remove the entry, or name a reference.`);
    } else if (rule === "set null" && !field.optional) {
      report(r, d.model, node, Codes.onDeleteField, `the onDelete of ${d.model.name} says "set null" for \`${name}\`, which is required: a required reference cannot be cleared. Make it optional (\`${name}?: Id<${field.reference.model}>\`), or choose "cascade" or "restrict".`);
    }
  }
}

/**
 * What deleting a user does to the rows they own (issue 41: a user's own data): the owner
 * field's `onDelete` rule, `restrict` (the default: the account is not deleted while rows name
 * it, and the page says which models), `cascade` (the rows go with the user, in the same
 * statement) or `set null` (the rows stay, anonymised: the owner field must be optional). The
 * database does it (the owner's foreign key), so the model needs a table.
 */
function ownerOnDelete(r: Relating, d: Derived, declared: Declared): "cascade" | "set null" | undefined {
  const owner = d.owner;
  const entry = owner === undefined ? undefined : declared.onDelete.get(owner.field);
  if (owner === undefined || entry === undefined || entry.rule === "restrict") return undefined;
  if (d.table === undefined) {
    report(r, d.model, entry.node, Codes.onDeleteField, `the onDelete of ${d.model.name} says "${entry.rule}" for its owner \`${owner.field}\`, but its rows are in memory: the database carries out what a user's deletion does to their rows. Give ${d.model.name} a table, or drop the entry.`);
    return undefined;
  }
  if (entry.rule === "set null") {
    const type = r.checker.getTypeFromTypeNode(d.model.call.typeArguments?.[0] as ts.TypeNode);
    const property = type.getProperty(owner.field);
    if (property === undefined || (property.flags & r.ts.SymbolFlags.Optional) === 0) {
      report(r, d.model, entry.node, Codes.onDeleteField, `the onDelete of ${d.model.name} says "set null" for its owner \`${owner.field}\`, which is required: a deleted user's rows keep no owner then. Make it optional (\`${owner.field}?: Id<${owner.model}>\`), or choose "cascade" (the rows go with the user) or "restrict".`);
      return undefined;
    }
  }
  return entry.rule;
}

function checkReadableWith(r: Relating, d: Derived, declared: Declared, references: ReadonlyMap<string, unknown>): string | undefined {
  const given = declared.readableWith;
  if (given === undefined) return undefined;
  if (references.has(given.field)) return given.field;
  const refs = [...references.keys()];
  report(r, d.model, given.node, Codes.readableWithField, `the readableWith of ${d.model.name} names \`${given.field}\`, which is not a reference field${refs.length === 0 ? `: ${d.model.name} has none` : `: its references are ${refs.join(", ")}`}. Name the reference whose row decides who reads a ${d.model.name} (readableWith: "${refs[0] ?? "post"}").`);
  return undefined;
}

/** The companion's `sort`: a field of the model (its key too) that sorts, not a file. */
function checkSort(r: Relating, d: Derived, declared: Declared, fields: readonly FieldShape[]): { field: string; descending: boolean } | undefined {
  const sort = declared.sort;
  if (sort === undefined) return undefined;
  const field = fields.find((f) => f.name === sort.field);
  if (sort.field === d.shape.key || (field !== undefined && field.input !== "file")) return { field: sort.field, descending: sort.descending };
  const names = [d.shape.key, ...fields.filter((f) => f.input !== "file").map((f) => f.name)];
  report(r, d.model, sort.node, Codes.sortOption, `the sort of ${d.model.name} names \`${sort.field}\`, which is not a field its Index sorts by (${names.join(", ")}). Name one, "-" before it for descending: sort: "-${names[1] ?? names[0]}".`);
  return undefined;
}

/** The languages a search may be in (runtime/resource/text-search.ts SEARCH_LANGUAGES). */
const SEARCH_LANGUAGES = new Set([
  "simple", "arabic", "armenian", "basque", "catalan", "danish", "dutch", "english", "estonian", "finnish", "french", "german", "greek", "hindi", "hungarian",
  "indonesian", "irish", "italian", "lithuanian", "nepali", "norwegian", "portuguese", "romanian", "russian", "serbian", "spanish", "swedish", "tamil", "turkish", "yiddish",
]);

/** The companion's `search`: text fields of the model (each once), in a language both engines know. */
function checkSearch(r: Relating, d: Derived, declared: Declared, fields: readonly FieldShape[]): { fields: string[]; language: string } | undefined {
  const search = declared.search;
  if (search === undefined) {
    if (declared.searchLanguage !== undefined) report(r, d.model, declared.searchLanguage.node, Codes.searchOption, `${d.model.name} declares a searchLanguage but no search: name its searchable fields, search: ["${fields.find((f) => f.input === "text")?.name ?? "title"}"].`);
    return undefined;
  }
  const text = fields.filter((f) => f.input === "text" || f.input === "textarea" || f.input === "select").map((f) => f.name);
  let ok = search.fields.length > 0;
  if (!ok) report(r, d.model, search.node, Codes.searchOption, `the search of ${d.model.name} names no field: list its text fields, most important first (search: ["${text[0] ?? "title"}"]).`);
  for (const [i, field] of search.fields.entries()) {
    const twice = search.fields.findIndex((f) => f.name === field.name) < i;
    // A field listed twice is reported once, at its second mention.
    if (text.includes(field.name) && !twice) continue;
    ok = false;
    report(r, d.model, field.node, Codes.searchOption, `the search of ${d.model.name} names \`${field.name}\`, which is ${text.includes(field.name) ? "listed twice" : "not one of its text fields"}: search reads text (${text.join(", ") || `${d.model.name} has none`}).`);
  }
  const language = declared.searchLanguage?.language ?? "english";
  if (!SEARCH_LANGUAGES.has(language)) {
    ok = false;
    report(r, d.model, declared.searchLanguage?.node ?? search.node, Codes.searchOption, `the searchLanguage of ${d.model.name} is ${JSON.stringify(language)}, which no text search configuration of PostgreSQL is: one of ${[...SEARCH_LANGUAGES].join(", ")}.`);
  }
  return ok ? { fields: search.fields.map((f) => f.name), language } : undefined;
}

/** Kinds of field a unique index can hold: not long text (past an index row's size) nor a yes/no. */
function comparable(field: FieldShape): boolean {
  return field.input !== "textarea" && field.input !== "checkbox";
}

/** The `Unique` tags and the companion's composite uniques: fields that exist and can be compared. */
function checkUnique(r: Relating, d: Derived, declared: Declared, fields: readonly FieldShape[]): string[][] {
  for (const field of fields) {
    if (field.unique === true && !comparable(field)) {
      report(r, d.model, fieldNode(r, d.model, field.name), Codes.uniqueField, uniqueKindMessage(d, field));
    }
  }
  const out: string[][] = [];
  for (const { fields: names, node } of declared.unique) {
    const problems = names.flatMap((name) => {
      const field = fields.find((f) => f.name === name);
      if (field === undefined && name !== d.owner?.field) return [`\`${name}\` is not one of its fields (${[...fields.map((f) => f.name), ...(d.owner === undefined ? [] : [d.owner.field])].join(", ")})`];
      return field !== undefined && !comparable(field) ? [`\`${name}\` is ${field.input === "textarea" ? "a long text" : "a yes/no"}, which a unique index cannot compare usefully`] : [];
    });
    if (names.length === 0) problems.push("an entry lists no field");
    if (new Set(names).size !== names.length) problems.push("an entry names a field twice");
    if (problems.length > 0) report(r, d.model, node, Codes.uniqueField, `the unique of ${d.model.name} cannot hold: ${problems.join("; ")}. List fields of ${d.model.name} that can be compared, e.g. unique: [["${fields[0]?.name ?? "title"}", "${fields[1]?.name ?? "author"}"]].`);
    else out.push([...names]);
  }
  return out;
}

function uniqueKindMessage(d: Derived, field: FieldShape): string {
  const what = field.input === "textarea" ? "a LongText (up to thousands of characters: longer than an index entry may be)" : "a boolean (two rows at most could ever be stored)";
  return `the field \`${field.name}\` of ${d.model.name} is Unique but ${what}, so fw cannot keep it unique. Remove the Unique tag, or use a short text (string, at most 200 characters by default).`;
}

/**
 * A table model's table with its references as foreign keys: each a `bigint` column named like
 * the field plus `_id` (`post` → `post_id`, as the owner's `author` → `author_id`) pointing at
 * the target's key with the rule, and the composite uniques as column lists. A read scope's
 * field (`publicWhen`, a yes/no) gets an index with the key (`posts_published_id_idx`): the
 * rows everyone reads, in the Index's key order, found and counted without reading the table;
 * so does each union field (`posts_category_id_idx`), the Index's select filter.
 */
function tableWithReferences(
  r: Relating,
  d: Derived,
  table: TableShape,
  named: { readonly references: ReadonlyMap<string, NonNullable<FieldShape["reference"]>>; readonly users: ReadonlyMap<string, OnDelete> },
  byName: ReadonlyMap<string, Derived>,
  unique: readonly string[][],
  publicWhen: string | undefined,
  options: {
    readonly ownerRule?: "cascade" | "set null" | undefined;
    readonly sort?: { readonly field: string; readonly descending: boolean } | undefined;
    readonly search?: { readonly fields: readonly string[]; readonly language: string } | undefined;
  } = {},
): TableShape | undefined {
  const { references, users } = named;
  const { ownerRule, sort, search } = options;
  const columns = table.columns.map((column): ColumnShape => {
    const userRule = users.get(column.field);
    if (userRule !== undefined) {
      const name = column.column.endsWith("_id") ? column.column : `${column.column}_id`;
      return { ...column, column: name, type: "bigint", references: { table: USERS_TABLE, column: "id", ...(userRule === "restrict" ? {} : { onDelete: userRule }) } };
    }
    if (ownerRule !== undefined && column.field === d.owner?.field && column.references !== undefined) {
      return { ...column, ...(ownerRule === "set null" ? { nullable: true } : {}), references: { ...column.references, onDelete: ownerRule } };
    }
    const reference = references.get(column.field);
    const target = reference === undefined ? undefined : byName.get(reference.model)?.table;
    if (reference === undefined || target === undefined) return column;
    const name = column.column.endsWith("_id") ? column.column : `${column.column}_id`;
    return { ...column, column: name, type: "bigint", references: { table: target.name, column: target.key.column, ...(reference.onDelete === "restrict" ? {} : { onDelete: reference.onDelete }) } };
  });
  const seen = new Set<string>([table.key.column]);
  for (const column of columns) {
    if (seen.has(column.column) || column.column.length > 63) {
      report(r, d.model, d.model.call, Codes.tableOption, `the reference \`${column.field}\` of ${d.model.name} would be the column ${JSON.stringify(column.column)} of the table ${table.name}, which ${seen.has(column.column) ? "another field already takes" : "is longer than 63 characters"}. Rename the field.`);
      return undefined;
    }
    seen.add(column.column);
  }
  const columnOf = (field: string): string => columns.find((c) => c.field === field)?.column ?? snake(field);
  const scope = publicWhen === undefined || d.owner === undefined ? undefined : columns.find((c) => c.field === publicWhen && c.type === "boolean");
  const indexes: string[][] = scope === undefined ? [] : [[scope.column, table.key.column]];
  // The Index's own order, ties by the key: one index serves every page, either way (issue 43).
  if (sort !== undefined && sort.field !== table.key.field) indexes.push([columnOf(sort.field), table.key.column]);
  // Each union field with the key: the Index's select filter (`?category=news`) finds its rows in
  // key order, and counts them, from the index alone; without it a filtered page read the table
  // in key order until it had a page (and its count) of the rows the filter keeps (issue 43).
  for (const field of d.shape.fields) {
    if (field.input !== "select") continue;
    const columns = [columnOf(field.name), table.key.column];
    if (!indexes.some((index) => index.join() === columns.join())) indexes.push(columns);
  }
  return {
    ...table,
    columns,
    ...(unique.length === 0 ? {} : { unique: unique.map((names) => names.map(columnOf)) }),
    ...(indexes.length === 0 ? {} : { indexes }),
    ...(search === undefined ? {} : { search: { language: search.language, columns: search.fields.map(columnOf) } }),
  };
}

/** The companion's `onDelete`, `readableWith` and `unique`, read from its inline options. */
function readDeclared(r: Relating, model: Model): Declared {
  const onDelete = new Map<string, { rule: OnDelete; node: ts.Node }>();
  const unique: { fields: string[]; node: ts.Node }[] = [];
  let readableWith: Declared["readableWith"];
  let publicWhen: string | undefined;
  let sort: Declared["sort"];
  let search: Declared["search"];
  let searchLanguage: Declared["searchLanguage"];
  for (const argument of model.call.arguments) {
    if (!r.ts.isObjectLiteralExpression(argument)) {
      const type = r.checker.getTypeAtLocation(argument);
      for (const name of ["onDelete", "readableWith", "unique"]) {
        if (type.getProperty(name) !== undefined) report(r, model, argument, codeOf(name), `the options of ${model.name} declare \`${name}\` where the build cannot read it: write the options inline, derives<${model.name}>(…, { ${name}: … }).`);
      }
      continue;
    }
    for (const property of argument.properties) {
      const name = property.name !== undefined && (r.ts.isIdentifier(property.name) || r.ts.isStringLiteral(property.name)) ? property.name.text : undefined;
      // The read scope is checked at run time (ownership.ts); a literal one is also indexed.
      if (name === "publicWhen" && r.ts.isPropertyAssignment(property) && (r.ts.isStringLiteral(property.initializer) || r.ts.isNoSubstitutionTemplateLiteral(property.initializer))) {
        publicWhen = property.initializer.text;
      }
      if (name === "sort") sort = readSort(r, model, property);
      if (name === "search") search = readSearch(r, model, property);
      if (name === "searchLanguage") searchLanguage = readLanguage(r, model, property);
      if (name !== "onDelete" && name !== "readableWith" && name !== "unique") continue;
      const value = r.ts.isPropertyAssignment(property) ? property.initializer : undefined;
      if (name === "onDelete") readOnDelete(r, model, property, value, onDelete);
      else if (name === "readableWith") readableWith = readText(r, model, property, value, name, `readableWith: "post"`);
      else readUnique(r, model, property, value, unique);
    }
  }
  return { onDelete, unique, ...(readableWith === undefined ? {} : { readableWith }), ...(publicWhen === undefined ? {} : { publicWhen }), ...(sort === undefined ? {} : { sort }), ...(search === undefined ? {} : { search }), ...(searchLanguage === undefined ? {} : { searchLanguage }) };
}

/** `search: ["title", "body"]`: an array literal of string literals. */
function readSearch(r: Relating, model: Model, property: ts.ObjectLiteralElementLike): Declared["search"] {
  const value = r.ts.isPropertyAssignment(property) ? property.initializer : undefined;
  const list = value !== undefined && r.ts.isArrayLiteralExpression(value) ? value.elements : undefined;
  const names = list?.map((e) => (r.ts.isStringLiteral(e) || r.ts.isNoSubstitutionTemplateLiteral(e) ? { name: e.text, node: e as ts.Node } : undefined));
  if (value === undefined || names === undefined || names.some((n) => n === undefined)) {
    report(r, model, property, Codes.searchOption, `the search of ${model.name} must be an array literal of field names the build can read: search: ["title", "body"].`);
    return undefined;
  }
  return { fields: names as { name: string; node: ts.Node }[], node: value };
}

/** `searchLanguage: "german"`: a string literal. */
function readLanguage(r: Relating, model: Model, property: ts.ObjectLiteralElementLike): Declared["searchLanguage"] {
  const value = r.ts.isPropertyAssignment(property) ? property.initializer : undefined;
  if (value === undefined || !(r.ts.isStringLiteral(value) || r.ts.isNoSubstitutionTemplateLiteral(value))) {
    report(r, model, property, Codes.searchOption, `the searchLanguage of ${model.name} must be a string literal the build can read: searchLanguage: "english".`);
    return undefined;
  }
  return { language: value.text, node: value };
}

/** `sort: "-createdAt"`: a string literal, a field, `-` before it for descending. */
function readSort(r: Relating, model: Model, property: ts.ObjectLiteralElementLike): Declared["sort"] {
  const value = r.ts.isPropertyAssignment(property) ? property.initializer : undefined;
  if (value === undefined || !(r.ts.isStringLiteral(value) || r.ts.isNoSubstitutionTemplateLiteral(value))) {
    report(r, model, property, Codes.sortOption, `the sort of ${model.name} must be a string literal the build can read: sort: "-createdAt" (a field, "-" before it for descending).`);
    return undefined;
  }
  const descending = value.text.startsWith("-");
  return { field: descending ? value.text.slice(1) : value.text, descending, node: value };
}

function codeOf(option: string): Finding["code"] {
  return option === "onDelete" ? Codes.onDeleteField : option === "readableWith" ? Codes.readableWithField : Codes.uniqueField;
}

function readOnDelete(r: Relating, model: Model, property: ts.Node, value: ts.Expression | undefined, out: Map<string, { rule: OnDelete; node: ts.Node }>): void {
  if (value === undefined || !r.ts.isObjectLiteralExpression(value)) {
    report(r, model, property, Codes.onDeleteField, `the onDelete of ${model.name} must be an object literal the build can read: onDelete: { post: "cascade" }.`);
    return;
  }
  for (const entry of value.properties) {
    const field = entry.name !== undefined && (r.ts.isIdentifier(entry.name) || r.ts.isStringLiteral(entry.name)) ? entry.name.text : undefined;
    const rule = r.ts.isPropertyAssignment(entry) && r.ts.isStringLiteral(entry.initializer) ? entry.initializer.text : undefined;
    if (field === undefined || rule === undefined || !(RULES as readonly string[]).includes(rule)) {
      report(r, model, entry, Codes.onDeleteField, `each entry of the onDelete of ${model.name} names a reference field and one of ${RULES.map((x) => `"${x}"`).join(", ")}, as literals: onDelete: { post: "cascade" }.`);
      continue;
    }
    out.set(field, { rule: rule as OnDelete, node: entry });
  }
}

function readText(r: Relating, model: Model, property: ts.Node, value: ts.Expression | undefined, option: string, example: string): { field: string; node: ts.Node } | undefined {
  if (value !== undefined && (r.ts.isStringLiteral(value) || r.ts.isNoSubstitutionTemplateLiteral(value))) return { field: value.text, node: value };
  report(r, model, property, codeOf(option), `the ${option} of ${model.name} must be a string literal the build can read: ${example}.`);
  return undefined;
}

function readUnique(r: Relating, model: Model, property: ts.Node, value: ts.Expression | undefined, out: { fields: string[]; node: ts.Node }[]): void {
  const lists = value !== undefined && r.ts.isArrayLiteralExpression(value) ? value.elements : undefined;
  if (lists === undefined) {
    report(r, model, property, Codes.uniqueField, `the unique of ${model.name} must be an array literal of field lists: unique: [["list", "position"]].`);
    return;
  }
  for (const list of lists) {
    const names = r.ts.isArrayLiteralExpression(list) ? list.elements.map((e) => (r.ts.isStringLiteral(e) ? e.text : undefined)) : undefined;
    if (names === undefined || names.some((n) => n === undefined)) {
      report(r, model, list, Codes.uniqueField, `each entry of the unique of ${model.name} is an array of field names, as literals: unique: [["list", "position"]].`);
      continue;
    }
    out.push({ fields: names as string[], node: list });
  }
}

/** The field's declaration in the model's interface, else the `derives` call. */
function fieldNode(r: Relating, model: Model, field: string): ts.Node {
  const type = r.checker.getTypeFromTypeNode(model.call.typeArguments?.[0] as ts.TypeNode);
  const declaration = type.getProperty(field)?.valueDeclaration;
  return declaration !== undefined && declaration.getSourceFile().fileName === model.call.getSourceFile().fileName ? declaration : model.call;
}

function report(r: Relating, model: Model, node: ts.Node, code: Finding["code"], message: string): void {
  const inCall = node.getSourceFile().fileName === model.call.getSourceFile().fileName;
  r.findings.push({ code, category: "error", file: model.call.getSourceFile(), ...at(inCall ? node : model.call), message: `${r.shown(model.file)}: ${message}` });
}
