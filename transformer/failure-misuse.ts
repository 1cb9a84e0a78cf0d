import type * as ts from "typescript";
import { Codes, toDiagnostic } from "./diagnostics.js";
import { isFwSymbol } from "./fw-symbols.js";

/** What fw's failure classes are called (runtime/http/failure.ts), all thrown, none returned. */
const FAILURES = new Set(["NotFound", "MethodNotAllowed", "NotImplemented", "BadRequest", "PayloadTooLarge", "Forbidden", "ServiceUnavailable", "InternalServerError"]);

/** TypeScript's "Value of type 'typeof NotFound' is not callable. Did you mean to include 'new'?" */
const NOT_CALLABLE_WITHOUT_NEW = 2348;
/** TypeScript's "Type 'BadRequest' is not assignable to / is missing the properties of type 'Response'" family. */
const NOT_ASSIGNABLE = new Set([2322, 2739, 2740, 2741]);

/**
 * The advice for a failure of fw's called like a response constructor (`return NotFound(…)`, as
 * `Ok(…)` is written) or returned (`return new NotFound(…)`): TypeScript's own error there asks
 * "Did you mean to include 'new'?" or lists Response's missing properties, and neither says that
 * a failure is thrown. Such errors, in every file, are replaced by fw's TS91029 at the same
 * place, which does; every other diagnostic is left as it is.
 */
export function explainFailureMisuse(program: ts.Program, tsApi: typeof ts): void {
  const rewrite = (diagnostics: readonly ts.Diagnostic[]): readonly ts.Diagnostic[] => {
    if (!diagnostics.some(maybeMisuse)) return diagnostics;
    const checker = program.getTypeChecker();
    return diagnostics.map((diagnostic) => {
      if (!maybeMisuse(diagnostic)) return diagnostic;
      const failure = misusedFailure(diagnostic, checker, tsApi);
      return failure === undefined ? diagnostic : advice(diagnostic, failure, tsApi);
    });
  };
  const semantic = program.getSemanticDiagnostics.bind(program);
  program.getSemanticDiagnostics = (file, token) => rewrite(semantic(file, token));
  // What --watch, --incremental and -b read instead (internal to TypeScript).
  const internal = program as ts.Program & { getBindAndCheckDiagnostics?: (file: ts.SourceFile, token?: ts.CancellationToken) => readonly ts.Diagnostic[] };
  const bindAndCheck = internal.getBindAndCheckDiagnostics?.bind(program);
  if (bindAndCheck !== undefined) internal.getBindAndCheckDiagnostics = (file, token) => rewrite(bindAndCheck(file, token));
}

function maybeMisuse(diagnostic: ts.Diagnostic): boolean {
  return diagnostic.file !== undefined && diagnostic.start !== undefined && (diagnostic.code === NOT_CALLABLE_WITHOUT_NEW || NOT_ASSIGNABLE.has(diagnostic.code));
}

/** The name of fw's failure class the diagnostic is about, when it is one of the two misuses. */
function misusedFailure(diagnostic: ts.Diagnostic, checker: ts.TypeChecker, tsApi: typeof ts): string | undefined {
  const file = diagnostic.file as ts.SourceFile;
  const start = diagnostic.start as number;
  let node: ts.Node | undefined = innermostAt(file, start, tsApi);
  // Up from the token to the outermost node that starts where the diagnostic does.
  while (node?.parent !== undefined && node.parent.getStart(file) === start && !tsApi.isSourceFile(node.parent)) node = node.parent;
  if (node === undefined) return undefined;
  if (diagnostic.code === NOT_CALLABLE_WITHOUT_NEW) {
    // The error sits on the callee of `NotFound(…)`.
    const call = tsApi.isCallExpression(node) ? node : node.parent;
    return call !== undefined && tsApi.isCallExpression(call) ? failureNamed(call.expression, checker, tsApi) : undefined;
  }
  // `return new NotFound(…)` in a handler declared to return a Response: the error sits on the statement.
  if (!tsApi.isReturnStatement(node) || node.expression === undefined) return undefined;
  const returned = skipParentheses(node.expression, tsApi);
  return tsApi.isNewExpression(returned) ? failureNamed(returned.expression, checker, tsApi) : undefined;
}

function failureNamed(callee: ts.Expression, checker: ts.TypeChecker, tsApi: typeof ts): string | undefined {
  const symbol = checker.getSymbolAtLocation(tsApi.isPropertyAccessExpression(callee) ? callee.name : callee);
  const name = symbol === undefined ? undefined : (symbol.flags & tsApi.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol).getName();
  return name !== undefined && FAILURES.has(name) && isFwSymbol(checker, symbol, "failure", name, tsApi) ? name : undefined;
}

function skipParentheses(expression: ts.Expression, tsApi: typeof ts): ts.Expression {
  let inner = expression;
  while (tsApi.isParenthesizedExpression(inner)) inner = inner.expression;
  return inner;
}

function innermostAt(file: ts.SourceFile, position: number, tsApi: typeof ts): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (position < node.getStart(file) || position >= node.getEnd()) return;
    found = node;
    tsApi.forEachChild(node, visit);
  };
  tsApi.forEachChild(file, visit);
  return found;
}

/** fw's TS91029 in place of TypeScript's diagnostic, at the same spot. */
function advice(diagnostic: ts.Diagnostic, failure: string, tsApi: typeof ts): ts.Diagnostic {
  return toDiagnostic(
    {
      code: Codes.failureNotThrown,
      category: "error",
      file: diagnostic.file,
      start: diagnostic.start as number,
      length: diagnostic.length ?? 0,
      message:
        `\`${failure}\` is one of fw's failures: it is thrown, not called or returned. Write \`throw new ${failure}(…)\`; ` +
        `fw answers it with its status and a problem page (a handler returns a Response only for Ok(…), Redirect(…) or status(…)).`,
    },
    tsApi,
  );
}
