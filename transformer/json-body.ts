import type * as ts from "typescript";
import { at, Codes, type Finding } from "./diagnostics.js";
import { fwTypeName } from "./fw-symbols.js";
import { fileFieldNames } from "./upload-body.js";

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

const READERS: ReadonlySet<string> = new Set(["json", "readJson", "upload", "readUpload"]);

/**
 * Calls in a route file that read a body the build cannot check, or read it the wrong way:
 * `request.json()` (or `readJson()`) on an `ApiRequest` that declares no body type,
 * `request.json<T>()` with a type argument (the type comes from the signature, where the build
 * can see it), `json()` on a body that names a file field (an upload: `upload()` reads it) and
 * `upload()` on one that names none (TS91082). Each is a finding at the call; true when there was none.
 */
export function checkBodyReads(c: BodyChecking, site: BodySite): boolean {
  let clean = true;
  const visit = (node: ts.Node): void => {
    if (c.ts.isCallExpression(node) && c.ts.isPropertyAccessExpression(node.expression)) {
      const member = node.expression.name.text;
      if (READERS.has(member)) {
        const receiver = c.checker.getTypeAtLocation(node.expression.expression);
        const problem = isApiRequest(receiver) ? misuse(c, node, member, receiver) : undefined;
        if (problem !== undefined) {
          report(c, site, node, problem.message, problem.code);
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

interface Misuse {
  readonly message: string;
  readonly code: typeof Codes.jsonBody | typeof Codes.uploadBody;
}

const UPLOAD_EXAMPLE = 'a body type naming a model\'s file field, `request: JsonRequest<NewPost>` with `cover?: Post["cover"]` in NewPost';

function misuse(c: BodyChecking, call: ts.CallExpression, member: string, receiver: ts.Type): Misuse | undefined {
  const upload = member === "upload" || member === "readUpload";
  const code = upload ? Codes.uploadBody : Codes.jsonBody;
  if (call.typeArguments !== undefined && call.typeArguments.length > 0) {
    const asked = call.typeArguments.map((t) => t.getText()).join(", ");
    const declare = upload ? `declare it in the handler's signature: ${UPLOAD_EXAMPLE}` : DECLARE.replace("NewTask", asked).replace("NewTask", asked);
    return { code, message: `\`request.${member}<${asked}>()\`: fw checks a ${upload ? "form" : "JSON body"} against the type the handler declares, not a type argument (the build writes the check from the signature): ${declare}.` };
  }
  const body = c.checker.getTypeArguments(receiver as ts.TypeReference)[1];
  const declared = body !== undefined && (body.flags & c.ts.TypeFlags.Never) === 0;
  const files = declared ? fileFieldNames(c, body) : [];
  if (upload && files.length === 0) {
    const what = declared ? "the request's body type names no model's file field, so the body is JSON: read it with `request.json()`. To take a file," : "the request's type declares no body. To take a file,";
    return { code, message: `\`request.${member}()\` reads an upload (a multipart form), but ${what} declare ${UPLOAD_EXAMPLE}.` };
  }
  if (!upload && files.length > 0) {
    const named = files.map((f) => `\`${f}\``).join(", ");
    return { code: Codes.uploadBody, message: `\`request.${member}()\` reads a JSON body, but the request's body type names the file field${files.length === 1 ? "" : "s"} ${named}, which makes it an upload (a multipart form): read it with \`await request.${member === "json" ? "upload" : "readUpload"}()\`, which stores each file.` };
  }
  if (!upload && !declared) return { code, message: `\`request.${member}()\` reads a JSON body, but the request's type declares none, so nothing would check it: ${DECLARE}.` };
  return undefined;
}

function report(c: BodyChecking, site: BodySite, node: ts.Node | undefined, message: string, code: Misuse["code"] = Codes.jsonBody): void {
  c.findings.push({ code, category: "error", file: site.source, ...(node === undefined ? {} : at(node)), message: `${site.where}: ${message}` });
}
