import type * as ts from "typescript";
import { at, Codes, type Finding } from "./diagnostics.js";
import { fwTypeName } from "./fw-symbols.js";

/** What reading a JSON body needs from the compiler. */
export interface BodyChecking {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly findings: Finding[];
}

/** Where a handler is, as messages name it. */
export interface BodySite {
  /** "src/app/api/tasks/Index.ts mounts POST /api/tasks" */
  readonly where: string;
  readonly name: string;
  readonly source: ts.SourceFile;
  readonly declaration: ts.Declaration | undefined;
}

const DECLARE = "declare it in the handler's signature, `request: JsonRequest<NewTask>` (or `ApiRequest<Params, NewTask>` on a path with parameters), and call `request.json()`";

/**
 * The JSON body an API handler declares (`ApiRequest<P, B>`'s `B`): true when it names one the
 * build writes a typia validator for, false when it declares none (`B` left out), undefined
 * after a finding (`any` or `unknown`: nothing to check the body against).
 */
export function declaredBody(c: BodyChecking, site: BodySite, request: ts.Type): boolean | undefined {
  const body = c.checker.getTypeArguments(request as ts.TypeReference)[1];
  if (body === undefined || (body.flags & c.ts.TypeFlags.Never) !== 0) return false;
  if ((body.flags & (c.ts.TypeFlags.Any | c.ts.TypeFlags.Unknown)) !== 0) {
    const written = c.checker.typeToString(body);
    report(c, site, site.declaration, `\`${site.name}\` takes a JSON body of type \`${written}\`, which says nothing the body could be checked against. Name the shape it must have (an interface, typia tags welcome): ${DECLARE}.`);
    return undefined;
  }
  return true;
}

/**
 * Calls in a route file that read a JSON body the build cannot check: `request.json()` (or
 * `readJson()`) on an `ApiRequest` that declares no body type, and `request.json<T>()` with a
 * type argument (the type comes from the signature, where the build can see it). Each is a
 * finding at the call; true when there was none.
 */
export function checkBodyReads(c: BodyChecking, site: BodySite): boolean {
  let clean = true;
  const visit = (node: ts.Node): void => {
    if (c.ts.isCallExpression(node) && c.ts.isPropertyAccessExpression(node.expression)) {
      const member = node.expression.name.text;
      if (member === "json" || member === "readJson") {
        const receiver = c.checker.getTypeAtLocation(node.expression.expression);
        const problem = isApiRequest(receiver) ? misuse(c, node, member, receiver) : undefined;
        if (problem !== undefined) {
          report(c, site, node, problem);
          clean = false;
        }
      }
    }
    c.ts.forEachChild(node, visit);
  };
  visit(site.source);
  return clean;
}

function isApiRequest(type: ts.Type): boolean {
  const name = fwTypeName(type, "request");
  return name === "ApiRequest" || name === "JsonRequest";
}

function misuse(c: BodyChecking, call: ts.CallExpression, member: string, receiver: ts.Type): string | undefined {
  if (call.typeArguments !== undefined && call.typeArguments.length > 0) {
    const asked = call.typeArguments.map((t) => t.getText()).join(", ");
    return `\`request.${member}<${asked}>()\`: fw checks a JSON body against the type the handler declares, not a type argument (the build writes the check from the signature): ${DECLARE.replace("NewTask", asked).replace("NewTask", asked)}.`;
  }
  const body = c.checker.getTypeArguments(receiver as ts.TypeReference)[1];
  if (body === undefined || (body.flags & c.ts.TypeFlags.Never) !== 0) {
    return `\`request.${member}()\` reads a JSON body, but the request's type declares none, so nothing would check it: ${DECLARE}.`;
  }
  return undefined;
}

function report(c: BodyChecking, site: BodySite, node: ts.Node | undefined, message: string): void {
  c.findings.push({ code: Codes.jsonBody, category: "error", file: site.source, ...(node === undefined ? {} : at(node)), message: `${site.where}: ${message}` });
}
