import * as path from "node:path";
import type * as ts from "typescript";

/**
 * typia 12's tags check one thing and write another into the JSON Schema it makes (issue 39,
 * item 8): `MaxLength`/`MinLength` count UTF-16 code units (`"😀".length` is 2) where JSON Schema
 * counts code points, so 60 emoji passed an OpenAPI `maxLength: 100` and got a 400; and
 * `Type<"uint32">`/`Type<"int32">` check a range their schema leaves out. typia fixed the lengths
 * in its later releases (samchon/typia#2046), which need a newer Node and TypeScript than fw
 * runs on. fw compiles these three declarations with the fix: the program the build checks and
 * typia transforms holds the fixed text; the files on disk, and what an editor shows, are typia's.
 *
 * Each fix names the text typia 12.2.1 ships; a typia whose text differs is compiled as it is,
 * and the build warns once that its lengths and ranges may disagree with its schemas
 * (index.ts, warnUnknownTypiaTags).
 */
interface TagFix {
  /** The declaration file, under `@typia/interface/lib/tags/`. */
  readonly file: string;
  readonly shipped: string;
  readonly fixed: string;
}

const FIXES: readonly TagFix[] = [
  {
    file: "MaxLength.d.ts",
    shipped: "validate: `$input.length <= ${Value}`;",
    // A string of more than 2N code units has more than N code points: counted only between N and 2N.
    fixed: "validate: `($input.length <= ${Value} || ($input.length <= ${Value} * 2 && [...$input].length <= ${Value}))`;",
  },
  {
    file: "MinLength.d.ts",
    shipped: "validate: `${Value} <= $input.length`;",
    fixed: "validate: `(${Value} <= $input.length && (${Value} * 2 <= $input.length || ${Value} <= [...$input].length))`;",
  },
  {
    file: "Type.d.ts",
    shipped: [
      '    schema: Value extends "uint32" | "uint64" ? {',
      '        type: "integer";',
      "        minimum: 0;",
      "    } : {",
      '        type: Value extends "int32" | "uint32" | "int64" | "uint64" ? "integer" : "number";',
      "    };",
    ].join("\n"),
    fixed: [
      '    schema: Value extends "uint32" ? {',
      '        type: "integer";',
      "        minimum: 0;",
      "        maximum: 4294967295;",
      '    } : Value extends "int32" ? {',
      '        type: "integer";',
      "        minimum: -2147483648;",
      "        maximum: 2147483647;",
      '    } : Value extends "uint64" ? {',
      '        type: "integer";',
      "        minimum: 0;",
      "    } : {",
      '        type: Value extends "int64" ? "integer" : "number";',
      "    };",
    ].join("\n"),
  },
];

const TAGS_DIR = `${path.sep}@typia${path.sep}interface${path.sep}lib${path.sep}tags${path.sep}`;

/** The fix of the typia declaration at `fileName`, if it is one fw fixes. */
function fixOf(fileName: string): TagFix | undefined {
  const resolved = path.resolve(fileName);
  if (!resolved.includes(TAGS_DIR)) return undefined;
  return FIXES.find((fix) => resolved.endsWith(TAGS_DIR + fix.file));
}

/** Whether `fileName` is one of the typia declarations fw compiles fixed. */
export function isFixedTypiaTag(fileName: string): boolean {
  return fixOf(fileName) !== undefined;
}

/** The fixed copy of each original, kept so a host hands out the same copy as long as it hands out the same original. */
const fixedCopies = new WeakMap<ts.SourceFile, ts.SourceFile>();

/** Files whose text was not typia 12.2.1's: the build warns of them. */
const unknownTexts = new Set<string>();

/**
 * `file` as fw compiles it: the fixed copy of one of typia's tag declarations (same name and
 * version, so a watch or incremental build sees no change between compiles), else `file`.
 */
export function fixedTypiaTag(tsApi: typeof ts, file: ts.SourceFile, languageVersion: ts.ScriptTarget | ts.CreateSourceFileOptions): ts.SourceFile {
  const fix = fixOf(file.fileName);
  if (fix === undefined || file.text.includes(fix.fixed)) return file;
  const known = fixedCopies.get(file);
  if (known !== undefined) return known;
  if (!file.text.includes(fix.shipped)) {
    unknownTexts.add(file.fileName);
    return file;
  }
  const copy = tsApi.createSourceFile(file.fileName, file.text.replace(fix.shipped, fix.fixed), languageVersion);
  const version = (file as ts.SourceFile & { version?: string }).version;
  if (version !== undefined) (copy as ts.SourceFile & { version?: string }).version = version;
  fixedCopies.set(file, copy);
  return copy;
}

/** Whether every fixed declaration `program` holds is the fixed copy (typia's tags not imported: nothing to fix). */
export function holdsFixedTags(program: ts.Program): boolean {
  return program.getSourceFiles().every((file) => {
    const fix = fixOf(file.fileName);
    return fix === undefined || file.text.includes(fix.fixed) || !file.text.includes(fix.shipped);
  });
}

/** typia declarations met whose text was not the one fw fixes (another typia than 12.2.1). */
export function unknownTypiaTags(): readonly string[] {
  return [...unknownTexts];
}

const hostsFixed = new WeakSet<ts.CompilerHost>();

/**
 * Has `host` hand out the fixed copies from now on (in place: a watch reuses its host for every
 * compile, and its next program then holds them from the start, with nothing to rebuild).
 */
export function fixTypiaTagsOf(host: ts.CompilerHost, tsApi: typeof ts): void {
  if (hostsFixed.has(host)) return;
  hostsFixed.add(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const file = getSourceFile(fileName, languageVersion, onError, shouldCreate);
    return file === undefined ? undefined : fixedTypiaTag(tsApi, file, languageVersion);
  };
  const byPath = host.getSourceFileByPath?.bind(host);
  if (byPath !== undefined) {
    host.getSourceFileByPath = (fileName, filePath, languageVersion, onError, shouldCreate) => {
      const file = byPath(fileName, filePath, languageVersion, onError, shouldCreate);
      return file === undefined ? undefined : fixedTypiaTag(tsApi, file, languageVersion);
    };
  }
}
