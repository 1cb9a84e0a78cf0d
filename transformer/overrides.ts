/**
 * Safe by default (issue 39): whether the app uses the auth module (then every page and model
 * says who may reach it, TS91009, without an opt-in), and what a handwritten route in a derived
 * page's place keeps of its model: the model's guard for that page's role when it declares none,
 * and its stores read as that role.
 */
import type * as ts from "typescript";
import type { Checking } from "./checking.js";
import { Codes, type Finding } from "./diagnostics.js";
import type { Derived, Row } from "./emit.js";
import { overriddenPage } from "./known-routes.js";

/**
 * The auth module's specifier when the app uses it: the plugin option `auth` when written (it
 * names the module for messages; it cannot turn the check off), else fw's own auth module when
 * any of the app's files imports it. Undefined for an app that never signs anyone in.
 */
export function authModule(tsApi: typeof ts, program: ts.Program, projectDir: string, option: string | undefined, fwModule: string): string | undefined {
  if (option !== undefined) return option;
  const wanted = `${fwModule}/auth`;
  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || !file.fileName.startsWith(projectDir) || /[\\/]node_modules[\\/]/.test(file.fileName)) continue;
    if (file.statements.some((statement) => importsFrom(tsApi, statement) === wanted)) return wanted;
  }
  return undefined;
}

function importsFrom(tsApi: typeof ts, statement: ts.Statement): string | undefined {
  if (!tsApi.isImportDeclaration(statement) && !tsApi.isExportDeclaration(statement)) return undefined;
  const specifier = statement.moduleSpecifier;
  return specifier !== undefined && tsApi.isStringLiteral(specifier) ? specifier.text : undefined;
}

/** Whether a model's companion declares who may reach its routes (`guarded` or `owned` among its options). */
export function declaresGuard(c: Pick<Checking, "ts">, derived: Derived): boolean {
  const options = derived.model.call.arguments.find((a) => c.ts.isObjectLiteralExpression(a));
  return (
    options !== undefined &&
    c.ts.isObjectLiteralExpression(options) &&
    options.properties.some((p) => p.name !== undefined && (p.name.getText() === "guarded" || p.name.getText() === "owned" || p.name.getText() === "policy"))
  );
}

/**
 * Each row with the derived page it takes the place of (a live page by its GET), and whether it
 * keeps that model's guard: it declares none of its own and the model declares one.
 */
export function placeRows(c: Pick<Checking, "ts">, rows: readonly Row[], derived: readonly Derived[]): Row[] {
  return rows.map((row): Row => {
    if (row.handler.case === "ws") return row;
    const page = overriddenPage(derived, row.handler.case === "live" ? "GET" : row.method, row.pattern);
    if (page === undefined) return row;
    const overrides = { model: page.model.model.name, role: page.role };
    return { ...row, overrides, ...(!row.guarded && declaresGuard(c, page.model) ? { inheritsGuard: true } : {}) };
  });
}

/**
 * TS91009 for a route file: with the auth module on, a page that declares no `guarded` and takes
 * no derived page's place under its model's guard fails the build.
 */
export function checkRowGuards(c: Pick<Checking, "shown" | "findings">, rows: readonly Row[], auth: string, sourceOf: (file: string) => ts.SourceFile | undefined): void {
  for (const row of rows) {
    if (row.guarded || row.inheritsGuard === true) continue;
    const finding: Finding = {
      code: Codes.missingGuard,
      category: "error",
      file: sourceOf(row.file),
      message:
        `${c.shown(row.file)} (${row.method} ${row.pattern}) declares no \`guarded\`. The app uses the auth module (${auth}), so every page says who may reach it: ` +
        `export const guarded = Guarded.public; (open to everyone) or a guard from ${auth} (auth.guarded()).`,
    };
    c.findings.push(finding);
  }
}
