import type * as ts from "typescript";
import type { Model } from "./models.js";

const ROLES = ["Index", "New", "Show", "Edit", "Create", "Update", "Destroy"] as const;

/**
 * The roles a model mounts, read from its `derives` call's `actions` when written inline:
 * `Actions.all`, `Actions.only(Index, Show)`, `Actions.except(Destroy)`, and `.except(…)` after
 * any of them, each role a literal (or a constant of a literal type, as `Destroy` is). Undefined
 * when there is no such option (all roles) or the build cannot read it; the path check then
 * takes every role as mounted, so it never refuses a link to a route that may exist.
 */
export function mountedRoles(tsApi: typeof ts, checker: ts.TypeChecker, model: Model): ReadonlySet<string> | undefined {
  const options = model.call.arguments.find((argument) => tsApi.isObjectLiteralExpression(argument));
  if (options === undefined || !tsApi.isObjectLiteralExpression(options)) return undefined;
  const actions = options.properties.find((p) => p.name !== undefined && tsApi.isIdentifier(p.name) && p.name.text === "actions");
  if (actions === undefined) return undefined;
  return actions !== undefined && tsApi.isPropertyAssignment(actions) ? rolesOf(tsApi, checker, actions.initializer) : undefined;
}

function rolesOf(tsApi: typeof ts, checker: ts.TypeChecker, node: ts.Expression): Set<string> | undefined {
  // `Actions.all`
  if (tsApi.isPropertyAccessExpression(node) && node.name.text === "all") return new Set(ROLES);
  if (!tsApi.isCallExpression(node) || !tsApi.isPropertyAccessExpression(node.expression)) return undefined;
  const named = rolesNamed(tsApi, checker, node.arguments);
  if (named === undefined) return undefined;
  const method = node.expression.name.text;
  const receiver = node.expression.expression;
  // `Actions.only(…)` and `Actions.except(…)` on the class; `.except(…)` on a set of roles.
  if (tsApi.isIdentifier(receiver) && receiver.text === "Actions") {
    if (method === "only") return new Set(named);
    if (method === "except") return new Set(ROLES.filter((role) => !named.includes(role)));
    return undefined;
  }
  if (method !== "except") return undefined;
  const before = rolesOf(tsApi, checker, receiver);
  return before === undefined ? undefined : new Set([...before].filter((role) => !named.includes(role)));
}

function rolesNamed(tsApi: typeof ts, checker: ts.TypeChecker, args: readonly ts.Expression[]): string[] | undefined {
  const roles: string[] = [];
  for (const argument of args) {
    if (tsApi.isSpreadElement(argument)) return undefined;
    const type = checker.getTypeAtLocation(argument);
    if (!type.isStringLiteral() || !(ROLES as readonly string[]).includes(type.value)) return undefined;
    roles.push(type.value);
  }
  return roles;
}
