/**
 * File fields (issue 40): a model's `Upload<…>` or `Image<…>` field, read from its fw tag. The
 * tag's `options` say which media types the field takes, how many bytes a file may have and,
 * for an image, how many pixels; the build checks them and the form, the multipart reader, the
 * column and the pages follow.
 */
import type * as ts from "typescript";

/** What a file field takes, as the generated FieldSpec carries it (runtime/resource/model.ts FileSpec). */
export interface FileShape {
  /** An image (`Image<…>`): shown inline, its metadata removed, with variants. */
  readonly image: boolean;
  /** Media types or `type/*` patterns, read from the bytes; empty for any type. */
  readonly accept: readonly string[];
  readonly maxBytes: number;
  /** Images only: the most pixels (width × height). */
  readonly maxPixels?: number;
}

/** The defaults `Upload<…>` and `Image<…>` document (runtime/resource/file-types.ts). */
export const FILE_DEFAULTS = { maxBytes: 10_000_000, maxPixels: 50_000_000 } as const;

/** The image types an `Image<…>` takes and pages show inline (never SVG, which can carry script). */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"] as const;

/** `type/subtype` or `type/*`, with a registered top-level type (RFC 6838). */
const MEDIA_PATTERN = /^(application|audio|font|image|model|text|video)\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/;

export interface FileReading {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  /** Reports a mistake in the field's options, at the model (`code` is fileField). */
  readonly problem: (message: string) => void;
}

/** The kind of the fw tag a file field's type carries (`fw.upload`, `fw.image`), with the tag's props type. */
export function fileTagOf(r: Pick<FileReading, "checker">, type: ts.Type): { readonly image: boolean; readonly props: ts.Type } | undefined {
  const members = type.isIntersection() ? type.types : [type];
  for (const member of members) {
    const phantom = member.getProperty("typia.tag");
    if (phantom === undefined) continue;
    const props = r.checker.getNonNullableType(r.checker.getTypeOfSymbol(phantom));
    const kind = props.getProperty("kind");
    const literal = kind === undefined ? undefined : r.checker.getTypeOfSymbol(kind);
    const value = literal?.isStringLiteral() === true ? literal.value : undefined;
    if (value === "fw.upload" || value === "fw.image") return { image: value === "fw.image", props };
  }
  return undefined;
}

/**
 * A file field's options, checked: every `accept` member a media type or `type/*` (an image
 * field: one of the image types fw shows inline), `maxBytes` and `maxPixels` positive whole
 * numbers written as literals. Undefined after reporting a problem.
 */
export function readFileField(r: FileReading, field: string, model: string, tag: { readonly image: boolean; readonly props: ts.Type }): FileShape | undefined {
  const optionsSymbol = tag.props.getProperty("options");
  const options = optionsSymbol === undefined ? undefined : r.checker.getNonNullableType(r.checker.getTypeOfSymbol(optionsSymbol));
  const what = tag.image ? "Image" : "Upload";
  const accept = acceptOf(r, options, field, model, what);
  const maxBytes = limitOf(r, options, "maxBytes", field, model, what, FILE_DEFAULTS.maxBytes);
  const maxPixels = tag.image ? limitOf(r, options, "maxPixels", field, model, what, FILE_DEFAULTS.maxPixels) : undefined;
  if (accept === undefined || maxBytes === undefined || maxBytes === null || maxPixels === null) return undefined;
  if (tag.image) {
    const bad = accept.filter((type) => type !== "image/*" && !(IMAGE_TYPES as readonly string[]).includes(type));
    if (bad.length > 0) {
      const svg = bad.includes("image/svg+xml") ? ` SVG can carry script, so it is never shown inline: take it as a download with Upload<{ accept: "image/svg+xml" }>.` : "";
      r.problem(`the field \`${field}\` of the model ${model} is an Image that accepts ${bad.map((b) => JSON.stringify(b)).join(", ")}, which fw does not show as an image. An Image takes ${IMAGE_TYPES.join(", ")} (or "image/*" for all of them).${svg}`);
      return undefined;
    }
  }
  const images = tag.image && (accept.length === 0 || accept.includes("image/*")) ? [...IMAGE_TYPES] : accept;
  return { image: tag.image, accept: images, maxBytes, ...(maxPixels === undefined ? {} : { maxPixels }) };
}

function acceptOf(r: FileReading, options: ts.Type | undefined, field: string, model: string, what: string): string[] | undefined {
  const symbol = options?.getProperty("accept");
  if (symbol === undefined) {
    if (what === "Image") return [];
    r.problem(`the field \`${field}\` of the model ${model} is an Upload that names no \`accept\`: say which media types it takes, Upload<{ accept: "application/pdf" | "text/csv" }> ("text/*" for any text). fw takes no file of a type you did not name.`);
    return undefined;
  }
  const type = r.checker.getNonNullableType(r.checker.getTypeOfSymbol(symbol));
  const members = type.isUnion() ? type.types : [type];
  const texts = members.map((member) => (member.isStringLiteral() ? member.value : undefined));
  if (texts.some((text) => text === undefined)) {
    r.problem(`the \`accept\` of the field \`${field}\` of the model ${model} is \`${r.checker.typeToString(type)}\`: write the media types it takes as string literals, ${what}<{ accept: "application/pdf" | "text/csv" }>, or leave \`accept\` out to take any type.`);
    return undefined;
  }
  const unknown = (texts as string[]).filter((text) => !MEDIA_PATTERN.test(text));
  if (unknown.length > 0) {
    r.problem(
      `the \`accept\` of the field \`${field}\` of the model ${model} names ${unknown.map((u) => JSON.stringify(u)).join(", ")}, which is not a media type: write "type/subtype" or "type/*" in lower case ("application/pdf", "image/*"), ` +
        `with a top-level type of application, audio, font, image, model, text or video${unknown.includes("*/*") ? "; name the types the field takes (\"text/*\" for any text) rather than every type" : ""}.`,
    );
    return undefined;
  }
  return texts as string[];
}

/** A positive whole-number limit written as a literal; the default when absent; undefined (maxBytes) or null (maxPixels) after a problem. */
function limitOf(r: FileReading, options: ts.Type | undefined, name: "maxBytes" | "maxPixels", field: string, model: string, what: string, fallback: number): number | undefined | null {
  const symbol = options?.getProperty(name);
  if (symbol === undefined) return fallback;
  const type = r.checker.getNonNullableType(r.checker.getTypeOfSymbol(symbol));
  const value = type.isNumberLiteral() ? type.value : undefined;
  if (value === undefined || !Number.isSafeInteger(value) || value <= 0) {
    r.problem(
      `the \`${name}\` of the field \`${field}\` of the model ${model} is \`${r.checker.typeToString(type)}\`, which is no positive whole number: write the limit as a literal, ${what}<{ ${what === "Upload" ? 'accept: "application/pdf"; ' : ""}${name}: ${name === "maxBytes" ? "5_000_000" : "20_000_000"} }>, or leave it out for the default (${fallback.toLocaleString("en")}).`,
    );
    return name === "maxBytes" ? undefined : null;
  }
  return value;
}
