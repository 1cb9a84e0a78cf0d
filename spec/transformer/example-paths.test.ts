import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import type { Piece } from "../../transformer/path-shape.js";
import { piecesOf } from "../../transformer/path-sites.js";

const ROOT = join(import.meta.dirname, "../..");
const EXAMPLE = join(ROOT, "example/src");
const DERIVED_PAGES = join(ROOT, "runtime/resource");
/** Where the derived routes' patterns are named, once (what the pages fill with fillPath). */
const PATTERNS = new Set(["model-paths.ts", "picker.ts"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === ".fw") return [];
    const full = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/**
 * Every path the example builds from values (a template literal or a `+` chain starting with "/",
 * wherever it is written): what path() from src/.fw/paths.ts is for. Literal paths stay literal
 * (the build checks them, TS91050).
 */
function builtByHand(file: string, looksBuilt: (pieces: readonly Piece[]) => boolean): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isTemplateExpression(node) || (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken)) {
      const pieces = piecesOf(ts, node);
      if (pieces !== undefined && pieces.some((piece) => "hole" in piece) && looksBuilt(pieces)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${relative(ROOT, file)}:${line + 1}: ${node.getText()}`);
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("Paths built from values (issue 31 item 1)", () => {
  it("the example builds every path that holds a value with the generated path(), none by concatenation", () => {
    // A path starting with "/" and holding a value.
    const startsAPath = (pieces: readonly Piece[]): boolean => "text" in (pieces[0] as Piece) && /^\/[a-z]/.test((pieces[0] as { text: string }).text);
    expect(sourceFiles(EXAMPLE).flatMap((file) => builtByHand(file, startsAPath))).toEqual([]);
  });

  it("fw's derived pages fill their patterns (model-paths.ts) and append no segment to a path (`${at}/edit`)", () => {
    // A value followed by a segment, or a segment after a value: `${at}/edit`, `/posts/${key}`
    // (not an HTML closing tag, `</td>`: the rows tables write their markup as text; nor a media
    // type in a message, `multipart/form-data`: a slash inside a word starts no segment).
    const addsASegment = (pieces: readonly Piece[]): boolean => pieces.some((piece) => "text" in piece && /(?<![<\w])\/[a-z:]/.test(piece.text));
    const pages = sourceFiles(DERIVED_PAGES).filter((file) => !PATTERNS.has(relative(DERIVED_PAGES, file)));
    expect(pages.flatMap((file) => builtByHand(file, addsASegment))).toEqual([]);
  });
});
