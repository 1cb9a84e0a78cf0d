/**
 * An API body that takes an upload (issue 40): a handler's body type (`ApiRequest<P, B>`'s `B`)
 * naming a model's file field (`cover?: Post["cover"]`, `Pick<Post, "title" | "cover">`) makes
 * the route a `multipart/form-data` route. Each file field must be a model's own, so the build
 * knows the limits it takes and the table and column a stored file is recorded for (a file no
 * row comes to hold is swept); the other fields are the form's text parts, so each must be
 * something a text part carries.
 */
import type * as ts from "typescript";
import { at, Codes } from "./diagnostics.js";
import { fileTagOf } from "./file-fields.js";
import type { Checking, FileFieldSite, SignatureSite } from "./checking.js";

/** One file field of an upload body: the body's name for it, the model field it names, and whether the body requires it. Plain data (row-cache.ts). */
export interface UploadFile {
  readonly name: string;
  readonly model: string;
  readonly field: string;
  readonly required: boolean;
  readonly maxPixels?: number;
}

/** What an upload body's type says: its file fields, in declaration order. */
export interface UploadShape {
  readonly files: readonly UploadFile[];
}

const FIX = 'name the model\'s own field, `cover?: Post["cover"]` (or `Pick<Post, "title" | "cover">`)';

/** The names of a body type's file fields (properties typed `Upload<…>` or `Image<…>`). */
export function fileFieldNames(c: Pick<Checking, "checker">, body: ts.Type): string[] {
  return c.checker.getPropertiesOfType(body).flatMap((property) => (fileTagOf(c, c.checker.getNonNullableType(c.checker.getTypeOfSymbol(property))) === undefined ? [] : [property.getName()]));
}

/**
 * The upload a handler's body type declares: undefined when it names no file field (a JSON body),
 * null after a finding (TS91082), else its file fields with the model field each names.
 */
export function uploadShape(c: Checking, site: SignatureSite, body: ts.Type): UploadShape | undefined | null {
  const names = fileFieldNames(c, body);
  if (names.length === 0) return undefined;
  const written = c.checker.typeToString(body);
  if (body.isUnion()) {
    report(c, site, undefined, `\`${site.name}\` takes an upload of type \`${written}\`, a union: a multipart form has one shape. Declare one object type for the body.`);
    return null;
  }
  const files: UploadFile[] = [];
  let clean = true;
  for (const property of c.checker.getPropertiesOfType(body)) {
    const type = c.checker.getTypeOfSymbol(property);
    const declaration = property.valueDeclaration ?? property.getDeclarations()?.[0];
    if (names.includes(property.getName())) {
      const file = uploadFile(c, site, property, type, declaration);
      // A field of a model that failed the build: its own diagnostic says why, and the route is left out.
      if (file === undefined) return null;
      if (file === null) clean = false;
      else files.push(file);
    } else if (!carriedAsText(c, c.checker.getNonNullableType(type))) {
      report(
        c,
        site,
        declaration,
        `\`${site.name}\` takes an upload (its body names the file field${names.length === 1 ? "" : "s"} ${names.map((n) => `\`${n}\``).join(", ")}), a multipart form whose other fields are text parts, but \`${property.getName()}\` is \`${c.checker.typeToString(type)}\`. ` +
          "A text part carries a string, a number, a boolean (or a union of their literals), or an array of them (the part repeated): declare it as one, or send the rest as JSON to a route of its own.",
      );
      clean = false;
    }
  }
  return clean ? { files } : null;
}

/**
 * A body's file field as the model field it names, or null after a finding; undefined when the
 * field names a model that failed the build (its own diagnostic says why).
 */
function uploadFile(c: Checking, site: SignatureSite, property: ts.Symbol, type: ts.Type, declaration: ts.Declaration | undefined): UploadFile | null | undefined {
  const name = property.getName();
  const found = siteOf(c, property, declaration);
  if (found === undefined || found === "several") {
    const why =
      found === "several"
        ? "names the file fields of more than one model"
        : `is \`${c.checker.typeToString(type)}\`, a file type that is no model's file field`;
    report(c, site, declaration, `the upload body of \`${site.name}\`: its field \`${name}\` ${why}. fw stores an upload for a model's file field, recording the table and column that may hold it (so a file no row takes is swept), with that field's limits: ${FIX}.`);
    return null;
  }
  if (!found.usable) {
    if (c.brokenModels.has(found.model)) return undefined;
    report(c, site, declaration, `the upload body of \`${site.name}\`: its field \`${name}\` names \`${found.model}["${found.field}"]\`, but ${found.model} has no table (or derives no Resource), so no row could hold the file. Give ${found.model} a table (derives<${found.model}>(Form, Resource, { table: … })) or name another model's file field.`);
    return null;
  }
  const optional = (property.flags & c.ts.SymbolFlags.Optional) !== 0 || c.checker.getNonNullableType(type) !== type;
  return { name, model: found.model, field: found.field, required: !optional, ...(found.maxPixels === undefined ? {} : { maxPixels: found.maxPixels }) };
}

/**
 * The model field a body property names: the property itself (`Pick<Post, "cover">`, `extends
 * Post`: its declaration is the model's), or an indexed access in its declared type
 * (`Post["cover"]`, `NonNullable<Post["cover"]>`, through type aliases).
 */
function siteOf(c: Checking, property: ts.Symbol, declaration: ts.Declaration | undefined): FileFieldSite | "several" | undefined {
  for (const d of property.getDeclarations() ?? []) {
    const own = c.fileFields.get(d);
    if (own !== undefined) return own;
  }
  const typeNode = declaration !== undefined && (c.ts.isPropertySignature(declaration) || c.ts.isPropertyDeclaration(declaration)) ? declaration.type : undefined;
  if (typeNode === undefined) return undefined;
  const found = new Set<FileFieldSite>();
  indexedSites(c, typeNode, found, 0);
  if (found.size > 1) return "several";
  return found.values().next().value;
}

function indexedSites(c: Checking, node: ts.Node, found: Set<FileFieldSite>, depth: number): void {
  if (depth > 5) return;
  if (c.ts.isIndexedAccessTypeNode(node) && c.ts.isLiteralTypeNode(node.indexType) && c.ts.isStringLiteral(node.indexType.literal)) {
    const property = c.checker.getPropertyOfType(c.checker.getTypeFromTypeNode(node.objectType), node.indexType.literal.text);
    for (const d of property?.getDeclarations() ?? []) {
      const site = c.fileFields.get(d);
      if (site !== undefined) found.add(site);
    }
  }
  if (c.ts.isTypeReferenceNode(node)) {
    const symbol = c.checker.getSymbolAtLocation(node.typeName);
    const alias = symbol !== undefined && symbol.flags & c.ts.SymbolFlags.Alias ? c.checker.getAliasedSymbol(symbol) : symbol;
    for (const d of alias?.getDeclarations() ?? []) if (c.ts.isTypeAliasDeclaration(d)) indexedSites(c, d.type, found, depth + 1);
  }
  c.ts.forEachChild(node, (child) => indexedSites(c, child, found, depth));
}

/** What a text part can carry: strings, numbers, bigints, booleans and their literals (tags allowed), or arrays of them. */
function carriedAsText(c: Checking, type: ts.Type): boolean {
  const members = type.isUnion() ? type.types : [type];
  return members.every((member) => isAtom(c, member) || (c.checker.isArrayType(member) && atoms(c, c.checker.getTypeArguments(member as ts.TypeReference)[0])));
}

function atoms(c: Checking, type: ts.Type | undefined): boolean {
  if (type === undefined) return false;
  const members = type.isUnion() ? type.types : [type];
  return members.every((member) => isAtom(c, member));
}

function isAtom(c: Checking, type: ts.Type): boolean {
  const F = c.ts.TypeFlags;
  const text = F.StringLike | F.NumberLike | F.BigIntLike | F.BooleanLike;
  if ((type.flags & text) !== 0) return true;
  // A typia tag: `string & tags.MinLength<1>`.
  return type.isIntersection() && type.types.some((part) => (part.flags & text) !== 0);
}

/** The members a stored file has (runtime/resource/file-types.ts `StoredFile`). */
const STORED_FILE = ["key", "name", "type", "size", "checksum"] as const;

/**
 * Places in a JSON body's type that hold a stored file (`$.post.cover`): a `StoredFile`, or a
 * model's file type below the body's top level. JSON would let a caller name any stored file by
 * its key and attach it to a row it may write, so the build refuses them (TS91082): a file comes
 * in as an upload. At most `limit` places.
 */
export function storedFilePlaces(c: Pick<Checking, "ts" | "checker">, body: ts.Type, limit = 5): string[] {
  const found: string[] = [];
  const seen = new Set<ts.Type>();
  const visit = (t: ts.Type, path: string, depth: number): void => {
    if (found.length >= limit || depth > 24) return;
    if (t.isUnion() || t.isIntersection()) {
      // A stored file intersected with fw's tag (`Image<…>`) is one place, not two.
      if (t.isIntersection() && STORED_FILE.every((name) => t.getProperty(name) !== undefined)) return void found.push(path);
      for (const member of t.types) visit(member, path, depth + 1);
      return;
    }
    if ((t.flags & c.ts.TypeFlags.Object) === 0 || seen.has(t)) return;
    seen.add(t);
    if (STORED_FILE.every((name) => t.getProperty(name) !== undefined)) return void found.push(path);
    if (c.checker.isArrayType(t) || c.checker.isTupleType(t)) {
      for (const element of c.checker.getTypeArguments(t as ts.TypeReference)) visit(element, `${path}[]`, depth + 1);
      return;
    }
    if (c.checker.getSignaturesOfType(t, c.ts.SignatureKind.Call).length > 0) return;
    for (const property of c.checker.getPropertiesOfType(t)) {
      if (!property.name.startsWith("typia.")) visit(c.checker.getTypeOfSymbol(property), `${path}.${property.name}`, depth + 1);
    }
  };
  visit(body, "$", 0);
  return found;
}

/** A JSON body that holds a stored file: a finding (TS91082), false. */
export function checkJsonHoldsNoFile(c: Checking, site: SignatureSite, body: ts.Type): boolean {
  const places = storedFilePlaces(c, body);
  if (places.length === 0) return true;
  report(
    c,
    site,
    undefined,
    `\`${site.name}\` takes a JSON body holding a stored file at ${places.join(", ")}: JSON would let a caller name any stored file by its key and give it to a row. ` +
      `A file comes in as an upload: ${FIX} at the body's top level, read with \`await request.upload()\`; or leave the file out of the body's type (\`Omit<Post, "cover">\`).`,
  );
  return false;
}

function report(c: Checking, site: SignatureSite, node: ts.Node | undefined, message: string): void {
  const place = node !== undefined && node.getSourceFile() === site.source ? node : site.declaration;
  c.findings.push({ code: Codes.uploadBody, category: "error", file: site.source, ...(place === undefined ? {} : at(place)), message: `${site.where}: ${message}` });
}
