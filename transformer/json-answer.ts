import type * as ts from "typescript";
import { fwTypeName, isFwSymbol } from "./fw-symbols.js";

/** A status a handler's return type names: a number, or "default" where it says `number`. */
export type AnswerStatus = number | "default";

/**
 * What a handler's return type says it answers: the statuses of its `Json(value, status)`
 * answers (`JsonResponse<T, S>`) and of its `JsonProblem(…)` answers (`JsonProblemResponse<S>`),
 * and whether it may also answer a plain `Response` (a page, text, a redirect), which says
 * nothing of its body. Plain data: it is kept in the row cache.
 */
export interface JsonAnswers {
  readonly json: readonly AnswerStatus[];
  readonly problems: readonly AnswerStatus[];
  readonly other: boolean;
}

/** fw's typed answers, recognised by their declarations in runtime/http/json.ts. */
export function isTypedAnswer(type: ts.Type): boolean {
  const name = fwTypeName(type, "json");
  return name === "JsonResponse" || name === "JsonProblemResponse";
}

/**
 * Reads the answers off a handler's signature, or undefined when its return type names no typed
 * answer (a `Response`, or a `Promise<Response>`: nothing to type or describe).
 */
export function jsonAnswers(tsApi: typeof ts, checker: ts.TypeChecker, signature: ts.Signature): JsonAnswers | undefined {
  const returned = signature.getReturnType();
  const awaited = checker.getAwaitedType(returned) ?? returned;
  const parts = awaited.isUnion() ? awaited.types : [awaited];
  const json = new Set<AnswerStatus>();
  const problems = new Set<AnswerStatus>();
  let other = false;
  for (const part of parts) {
    if ((part.flags & tsApi.TypeFlags.Never) !== 0) continue;
    const name = fwTypeName(part, "json");
    if (name === "JsonResponse") statusesOf(checker.getTypeArguments(part as ts.TypeReference)[1]).forEach((s) => json.add(s));
    else if (name === "JsonProblemResponse") statusesOf(checker.getTypeArguments(part as ts.TypeReference)[0]).forEach((s) => problems.add(s));
    else other = true;
  }
  if (json.size === 0 && problems.size === 0) return undefined;
  return { json: ordered(json), problems: ordered(problems), other };
}

/** The JSON values a handler's return type names: each `JsonResponse<T, S>`'s `T`. */
export function answerTypes(tsApi: typeof ts, checker: ts.TypeChecker, signature: ts.Signature): ts.Type[] {
  const returned = signature.getReturnType();
  const awaited = checker.getAwaitedType(returned) ?? returned;
  const parts = awaited.isUnion() ? awaited.types : [awaited];
  return parts.flatMap((part) => ((part.flags & tsApi.TypeFlags.Never) === 0 && fwTypeName(part, "json") === "JsonResponse" ? (checker.getTypeArguments(part as ts.TypeReference).slice(0, 1)) : []));
}

/** The statuses a status type holds: its number literals, or "default" for `number` itself. */
function statusesOf(type: ts.Type | undefined): AnswerStatus[] {
  if (type === undefined) return ["default"];
  const members = type.isUnion() ? type.types : [type];
  return members.map((member) => (member.isNumberLiteral() && Number.isInteger(member.value) ? member.value : "default"));
}

/** Statuses in ascending order, "default" last: the generated text must not depend on the checker's order. */
function ordered(statuses: ReadonlySet<AnswerStatus>): AnswerStatus[] {
  return [...statuses].sort((a, b) => (a === "default" ? 1 : b === "default" ? -1 : a - b));
}

/** fw's failure classes and the status each is answered with (runtime/http/failure.ts). */
const FAILURE_STATUS: Readonly<Record<string, number>> = {
  BadRequest: 400,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  StateConflict: 409,
  PayloadTooLarge: 413,
  UnprocessableContent: 422,
  InternalServerError: 500,
  NotImplemented: 501,
  ServiceUnavailable: 503,
};

/**
 * The statuses of fw's failures a handler throws where the build can see it: `throw new
 * NotFound(…)` written in the handler's own body (not in a function it calls). Listed in the
 * OpenAPI document among the route's answers; ascending.
 */
export function thrownStatuses(tsApi: typeof ts, checker: ts.TypeChecker, declaration: ts.Node | undefined): number[] {
  if (declaration === undefined) return [];
  const found = new Set<number>();
  const visit = (node: ts.Node): void => {
    if (tsApi.isThrowStatement(node) && tsApi.isNewExpression(node.expression)) {
      const name = node.expression.expression.getText();
      const status = FAILURE_STATUS[name];
      if (status !== undefined && isFwSymbol(checker, checker.getSymbolAtLocation(node.expression.expression), "failure", name, tsApi)) found.add(status);
    }
    tsApi.forEachChild(node, visit);
  };
  visit(declaration);
  return [...found].sort((a, b) => a - b);
}
