import type * as ts from "typescript";
import { at, Codes, type Finding } from "./diagnostics.js";
import { fileTagOf, readFileField, type FileShape } from "./file-fields.js";
import type { Model } from "./models.js";

/** A field as the generated ModelSpec lists it (runtime/resource/model.ts FieldSpec). */
export interface FieldShape {
  readonly name: string;
  readonly label: string;
  readonly input: "text" | "textarea" | "number" | "checkbox" | "select" | "date" | "reference" | "references" | "file";
  readonly optional: boolean;
  readonly options?: readonly string[];
  readonly describe: string;
  /** text and textarea fields: the most characters (code points) a value may have (the default, or `tags.MaxLength<N>`). */
  readonly maxLength?: number;
  /** Set by the server, not the form: a `Date` named createdAt / updatedAt, or a `readonly` property. */
  readonly serverSet?: "createdAt" | "updatedAt" | "readOnly";
  /**
   * A reference (`post: Id<Post>` to another derived model), or a list of them (`tags: Id<Tag>[]`,
   * input `references`): set by relations.ts once every model is known.
   */
  readonly reference?: { readonly model: string; readonly path: string; readonly onDelete: "restrict" | "cascade" | "set null" };
  /** The field's type carries fw's `Unique` tag. */
  readonly unique?: boolean;
  /** number fields of a whole-number type (`tags.Type<"uint32">`, another model's `Id`): the range its text is read in. */
  readonly integer?: { readonly min: number; readonly max: number };
  /** A file field (`Upload<…>`, `Image<…>`): what it takes (file-fields.ts). */
  readonly file?: FileShape;
}

/**
 * The whole numbers typia's `Type` tag allows on a `number`, as its checks bound them (uint64
 * and int64 beyond 2^53 cannot be told apart in a number: the safe range).
 */
const INTEGER_RANGES: Readonly<Record<string, { readonly min: number; readonly max: number }>> = {
  uint32: { min: 0, max: 4_294_967_295 },
  int32: { min: -2_147_483_648, max: 2_147_483_647 },
  uint64: { min: 0, max: Number.MAX_SAFE_INTEGER },
  int64: { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER },
};

/** Another model's key, as a form reads it when it is no reference: a whole number from 1 (keys start there). */
const KEY_RANGE = { min: 1, max: 4_294_967_295 } as const;

/**
 * The longest value a text field takes unless its type says otherwise with `tags.MaxLength<N>`
 * (docs/guides/models-and-forms.md): a one-line string, a `LongText`.
 */
export const DEFAULT_MAX_LENGTH = { text: 200, textarea: 10_000 } as const;

/** What the build learns of a model's type: its key, its form fields, its `Id<…>` references. */
export interface ModelShape {
  readonly key: string;
  readonly fields: readonly FieldShape[];
  /** Fields of type `Id<Other>`: the model each points at (the owner, or a reference: relations.ts). */
  readonly references: readonly { readonly field: string; readonly model: string }[];
  /** Fields of type `Id<Other>[]`: the model each lists rows of (many-to-many: relations.ts checks and joins them). */
  readonly lists: readonly { readonly field: string; readonly model: string }[];
  /** The companion's composite uniques (field names), once relations.ts has read them. */
  readonly unique?: readonly (readonly string[])[];
  /** The companion's `readableWith`, once relations.ts has checked it. */
  readonly readableWith?: string;
  /** The companion's `sort` (the derived Index's own order), once relations.ts has checked it. */
  readonly sort?: { readonly field: string; readonly descending: boolean };
  /** The companion's searchable fields and their language, once relations.ts has checked them. */
  readonly search?: { readonly fields: readonly string[]; readonly language: string };
}

export interface Shaping {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly shown: (file: string) => string;
  readonly findings: Finding[];
}

const FW_TYPES = /[\\/]runtime[\\/]resource[\\/]types\.(d\.)?ts$/;

/** The kind of fw's `Unique` tag (runtime/resource/types.ts). */
const UNIQUE_TAG = "fw.unique";

/** `publishedAt` → "Published at", `title` → "Title". */
export function humanise(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase().trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The derived path segment (DESIGN.md): plural, kebab-case. Post → posts, BlogPost → blog-posts, Category → categories. */
export function pathSegment(name: string): string {
  const kebab = name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
  if (/[^aeiou]y$/.test(kebab)) return `${kebab.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(kebab)) return `${kebab}es`;
  return `${kebab}s`;
}

/**
 * Reads a model's properties with the checker: exactly one `Id<Self>` key, then one form field
 * per property the form can edit. A property of a type no form can hold fails the build
 * naming the model, the field and the type.
 */
export function shapeModel(s: Shaping, model: Model): ModelShape | undefined {
  const typeNode = model.call.typeArguments?.[0] as ts.TypeNode;
  const type = s.checker.getTypeFromTypeNode(typeNode);
  const fields: FieldShape[] = [];
  const references: { field: string; model: string }[] = [];
  const lists: { field: string; model: string }[] = [];
  const keys: string[] = [];
  let ok = true;
  for (const property of type.getProperties()) {
    if (property.getName().startsWith("_")) {
      reportReserved(s, model, property);
      ok = false;
      continue;
    }
    const read = fieldOf(s, model, property);
    if (read === undefined) ok = false;
    else if ("listOf" in read) {
      // A list of another model's keys (many-to-many, issue 43): relations.ts checks the model and
      // makes it a multi-select and, for a table model, a join table.
      lists.push({ field: property.getName(), model: read.listOf });
      const serverSet = read.readOnly ? { serverSet: "readOnly" as const } : {};
      fields.push({ name: property.getName(), label: humanise(property.getName()), optional: isOptional(s, property), input: "references", describe: `a list of numbers of ${read.listOf} rows`, ...serverSet });
    } else if (!("idOf" in read)) fields.push(read);
    else if (read.idOf === model.name) keys.push(property.getName());
    else {
      // Another model's key: the owner (owner.ts drops it from the form), a reference to a
      // derived model (relations.ts makes it a picker and a foreign key), else a number.
      references.push({ field: property.getName(), model: read.idOf });
      fields.push({
        name: property.getName(),
        label: humanise(property.getName()),
        optional: isOptional(s, property),
        input: "number",
        describe: `the number of a ${read.idOf}`,
        integer: KEY_RANGE,
        ...(read.unique ? { unique: true } : {}),
      });
    }
  }
  if (keys.length !== 1) {
    const found = keys.length === 0 ? "has no key" : `has ${keys.length} keys (${keys.join(", ")})`;
    report(s, model, Codes.modelKey, `the model ${model.name} ${found}: give it exactly one field of type Id<${model.name}>, e.g. \`id: Id<${model.name}>\`.`);
    return undefined;
  }
  return ok ? { key: keys[0] as string, fields, references, lists } : undefined;
}

/**
 * The key's name of a model the build refused (its shape unread): its one `Id<Self>` field, else
 * `id`. Only for the routes the model would mount, which the later checks know (held-back.ts).
 */
export function keyName(s: Shaping, model: Model): string {
  const type = s.checker.getTypeFromTypeNode(model.call.typeArguments?.[0] as ts.TypeNode);
  const keys = type.getProperties().filter((p) => idModel(s, s.checker.getNonNullableType(s.checker.getTypeOfSymbol(p))) === model.name);
  return keys.length === 1 ? (keys[0] as ts.Symbol).getName() : "id";
}

type FieldRead = FieldShape | { readonly idOf: string; readonly unique: boolean } | { readonly listOf: string; readonly readOnly: boolean };

function isOptional(s: Shaping, property: ts.Symbol): boolean {
  const declared = s.checker.getTypeOfSymbol(property);
  return (property.flags & s.ts.SymbolFlags.Optional) !== 0 || (declared.isUnion() && declared.types.some((t) => (t.flags & s.ts.TypeFlags.Undefined) !== 0));
}

function fieldOf(s: Shaping, model: Model, property: ts.Symbol): FieldRead | undefined {
  const name = property.getName();
  const declared = s.checker.getTypeOfSymbol(property);
  const optional = isOptional(s, property);
  const type = s.checker.getNonNullableType(declared);
  const idOf = idModel(s, type);
  const unique = typiaTags(s, type).some((tag) => tag.kind === UNIQUE_TAG);
  if (idOf !== undefined) return { idOf, unique };
  const listOf = listModel(s, type);
  if (listOf !== undefined) {
    // A `readonly` list is kept by handlers, never by a form, as any readonly field: optional, so a new row may lack it.
    const readOnly = serverSetOf(s, property, "references") === "readOnly";
    if (readOnly && !optional) {
      report(s, model, Codes.unsupportedField, `the field \`${name}\` of the model ${model.name} is \`readonly\`: set by handlers, never by a form, so a new row has none. Make it optional (\`readonly ${name}?: …\`), or drop \`readonly\` to edit it in the form.`, property);
      return undefined;
    }
    return { listOf, readOnly };
  }
  const base = { name, label: humanise(name), optional, ...(unique ? { unique: true } : {}) };
  // A type TypeScript could not resolve (a misspelt `strng`) has its own error already: a second
  // one about `any` would only point away from it. The model still fails (no rows).
  if (isUnresolved(s, declared)) return undefined;
  const fileTag = fileTagOf(s, type);
  if (fileTag !== undefined) {
    const problem = (message: string): void => report(s, model, Codes.fileField, message, property);
    const file = readFileField({ ts: s.ts, checker: s.checker, problem }, name, model.name, fileTag);
    return file === undefined ? undefined : { ...base, input: "file", describe: file.image ? "an image" : "a file", file };
  }
  const kind = classify(s, type, property);
  if (kind === undefined) {
    report(s, model, Codes.unsupportedField, `the field \`${name}\` of the model ${model.name} has the type \`${s.checker.typeToString(declared)}\`, which fw cannot put in a form. Use string, LongText, number, boolean, a union of string literals, Date, Id<…>, a list of Id<…> (Id<Tag>[]), or a file (Upload<…>, Image<…>).`, property);
    return undefined;
  }
  const serverSet = serverSetOf(s, property, kind.input);
  if (serverSet === "readOnly" && !optional) {
    report(s, model, Codes.unsupportedField, `the field \`${name}\` of the model ${model.name} is \`readonly\`: set by handlers, never by a form, so a new row has none. Make it optional (\`readonly ${name}?: …\`), or drop \`readonly\` to edit it in the form.`, property);
    return undefined;
  }
  return { ...base, ...kind, ...(serverSet === undefined ? {} : { serverSet }) };
}

/** TypeScript's error type: what a reference to a name it could not find reads as. */
function isUnresolved(s: Shaping, type: ts.Type): boolean {
  return (type.flags & s.ts.TypeFlags.Any) !== 0 && (type as ts.Type & { readonly intrinsicName?: string }).intrinsicName === "error";
}

/** A `Date` named createdAt or updatedAt is stamped by the server; a `readonly` property is written only by handlers. */
function serverSetOf(s: Shaping, property: ts.Symbol, input: FieldShape["input"]): FieldShape["serverSet"] {
  const name = property.getName();
  if ((name === "createdAt" || name === "updatedAt") && input === "date") return name;
  const declaration = property.valueDeclaration;
  const readonly = declaration !== undefined && (s.ts.getCombinedModifierFlags(declaration) & s.ts.ModifierFlags.Readonly) !== 0;
  return readonly ? "readOnly" : undefined;
}

/**
 * The model an `Id<M>` points at, read from the alias's type argument; for an `Id<M>` joined
 * with another tag (`Id<Post> & Unique`, which loses the alias), from its phantom `"fw.model"`
 * member (`IdOf<M>` in runtime/resource/types.ts: `() => M`).
 */
function idModel(s: Shaping, type: ts.Type): string | undefined {
  const alias = type.aliasSymbol;
  if (alias?.getName() === "Id" && (alias.getDeclarations() ?? []).some((d) => FW_TYPES.test(d.getSourceFile().fileName))) {
    const target = type.aliasTypeArguments?.[0];
    return target === undefined ? undefined : modelName(target);
  }
  if (!type.isIntersection()) return undefined;
  for (const member of type.types) {
    const phantom = member.getProperty("fw.model");
    if (phantom === undefined || !(phantom.getDeclarations() ?? []).some((d) => FW_TYPES.test(d.getSourceFile().fileName))) continue;
    const [signature] = s.checker.getNonNullableType(s.checker.getTypeOfSymbol(phantom)).getCallSignatures();
    return signature === undefined ? undefined : modelName(s.checker.getReturnTypeOfSignature(signature));
  }
  return undefined;
}

/** The model an `Id<M>[]` (or `readonly Id<M>[]`) lists keys of. */
function listModel(s: Shaping, type: ts.Type): string | undefined {
  if (!s.checker.isArrayType(type)) return undefined;
  const element = s.checker.getTypeArguments(type as ts.TypeReference)[0];
  return element === undefined ? undefined : idModel(s, element);
}

function modelName(target: ts.Type): string | undefined {
  return (target.aliasSymbol ?? target.getSymbol())?.getName();
}

function classify(s: Shaping, type: ts.Type, property: ts.Symbol): Omit<FieldShape, "name" | "label" | "optional"> | undefined {
  const F = s.ts.TypeFlags;
  const tags = typiaTags(s, type);
  if (type.aliasSymbol?.getName() === "LongText" || tags.some((tag) => tag.kind === "fw.longText")) {
    return { input: "textarea", describe: "text", maxLength: maxLengthOf(tags, DEFAULT_MAX_LENGTH.textarea) };
  }
  // A boolean with a tag (`boolean & Unique`) is a union of `true & …` and `false & …`.
  const booleanMember = (t: ts.Type): boolean => (t.flags & F.BooleanLiteral) !== 0 || (t.isIntersection() && t.types.some((m) => (m.flags & F.BooleanLiteral) !== 0));
  if ((type.flags & F.BooleanLike) !== 0 || (type.isUnion() && type.types.every(booleanMember))) {
    return { input: "checkbox", describe: "yes or no" };
  }
  if (type.isUnion() && type.types.every((t) => t.isStringLiteral())) {
    const options = declaredOrder(s, property) ?? type.types.map((t) => (t as ts.StringLiteralType).value);
    return { input: "select", options, describe: `one of ${options.join(", ")}` };
  }
  const primitive = type.isIntersection() ? type.types.find((t) => (t.flags & (F.String | F.Number)) !== 0) : type;
  if (primitive !== undefined && (primitive.flags & F.String) !== 0) return { input: "text", describe: "text", maxLength: maxLengthOf(tags, DEFAULT_MAX_LENGTH.text) };
  if (primitive !== undefined && (primitive.flags & F.Number) !== 0) {
    const integer = tags.flatMap((tag) => (tag.kind === "type" && typeof tag.value === "string" && INTEGER_RANGES[tag.value] !== undefined ? [INTEGER_RANGES[tag.value]] : []))[0];
    return integer === undefined ? { input: "number", describe: "a number" } : { input: "number", describe: "a whole number", integer };
  }
  if (type.getSymbol()?.getName() === "Date") return { input: "date", describe: "a date (YYYY-MM-DD)" };
  return undefined;
}

/** A typia tag on a field's type (`tags.MaxLength<100>` is `{ kind: "maxLength", value: 100 }`). */
interface TagRead {
  readonly kind: string;
  readonly value: unknown;
}

/**
 * The typia tags of an intersection (`string & tags.MaxLength<100>`): each member's phantom
 * `"typia.tag"` property, as typia's own transformer reads them. Literal kinds and values only.
 */
function typiaTags(s: Shaping, type: ts.Type): TagRead[] {
  const members = type.isIntersection() ? type.types : [type];
  const found: TagRead[] = [];
  for (const member of members) {
    const phantom = member.getProperty("typia.tag");
    if (phantom === undefined) continue;
    const props = s.checker.getNonNullableType(s.checker.getTypeOfSymbol(phantom));
    const kind = literalOf(s, props, "kind");
    if (typeof kind === "string") found.push({ kind, value: literalOf(s, props, "value") });
  }
  return found;
}

function literalOf(s: Shaping, props: ts.Type, name: string): unknown {
  const symbol = props.getProperty(name);
  if (symbol === undefined) return undefined;
  const type = s.checker.getTypeOfSymbol(symbol);
  return type.isLiteral() ? type.value : undefined;
}

/** The smallest `tags.MaxLength<N>` on the type, else the default for its input. */
function maxLengthOf(tags: readonly TagRead[], fallback: number): number {
  const limits = tags.flatMap((tag) => (tag.kind === "maxLength" && typeof tag.value === "number" ? [tag.value] : []));
  return limits.length === 0 ? fallback : Math.min(...limits);
}

/** A literal union's members as written (the checker may list them in another order). */
function declaredOrder(s: Shaping, property: ts.Symbol): string[] | undefined {
  const declaration = property.valueDeclaration;
  const node = declaration !== undefined && s.ts.isPropertySignature(declaration) ? declaration.type : undefined;
  if (node === undefined || !s.ts.isUnionTypeNode(node)) return undefined;
  const texts = node.types.map((member) => (s.ts.isLiteralTypeNode(member) && s.ts.isStringLiteral(member.literal) ? member.literal.text : undefined));
  return texts.every((t): t is string => t !== undefined) ? texts : undefined;
}

/**
 * A field named `_…`: fw's forms reserve those names (`_method`, `_csrf`), so a form could
 * never carry the field, and a row field named so would shadow them. Reported at the field.
 */
function reportReserved(s: Shaping, model: Model, property: ts.Symbol): void {
  const name = property.getName();
  const declaration = property.valueDeclaration;
  const inModel = declaration !== undefined && declaration.getSourceFile().fileName === model.file;
  const rename = name.replace(/^_+/, "");
  const message =
    `${s.shown(model.file)}: the field \`${name}\` of the model ${model.name} starts with "_", which fw reserves for the fields its forms send (_method, _csrf). ` +
    `Rename it${rename === "" ? "" : `, e.g. \`${rename}\``}.`;
  s.findings.push({ code: Codes.reservedField, category: "error", file: model.call.getSourceFile(), ...(inModel ? at(declaration) : at(model.call)), message });
}

/** A finding about the model, at the field it names (when declared in the model's file), else at its `derives` call. */
function report(s: Shaping, model: Model, code: Finding["code"], message: string, field?: ts.Symbol): void {
  const declaration = field?.valueDeclaration;
  const node = declaration !== undefined && declaration.getSourceFile().fileName === model.file ? declaration : model.call;
  s.findings.push({ code, category: "error", file: model.call.getSourceFile(), ...at(node), message: `${s.shown(model.file)}: ${message}` });
}
