import type * as ts from "typescript";

/** What reading a socket listener needs from the compiler. */
export interface ListenerChecking {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  /** fw's `WsListener` type, when the program holds fw's declarations. */
  readonly wsListener: ts.Type | undefined;
}

/** The shape messages show, and a line to copy. */
export function listenerShape(name: string): string {
  return (
    "A listener is `{ open?(connection), message(connection, text: string), close?(connection) }`: " +
    `export const ${name} = { message: async (connection: WsConnection, text: string) => { … } };`
  );
}

const MEMBERS = ["open", "message", "close"];

/**
 * A GET route file's export meant as a WebSocket listener: an object, not a function, with one
 * of the listener's members or a DOM-style handler (`onmessage`).
 */
export function meantAsListener(type: ts.Type): boolean {
  if (type.getCallSignatures().length > 0) return false;
  return type.getProperties().some((p) => MEMBERS.includes(p.getName()) || /^on[A-Za-z]/.test(p.getName()));
}

/** The fw `WsListener` type, read from its declaration among the program's files. */
export function findWsListener(checker: ts.TypeChecker, files: readonly ts.SourceFile[]): ts.Type | undefined {
  const file = files.find((f) => /[\\/]runtime[\\/]ws[\\/]listener\.(d\.)?ts$/.test(f.fileName));
  const module = file === undefined ? undefined : checker.getSymbolAtLocation(file);
  const symbol = module === undefined ? undefined : checker.getExportsOfModule(module).find((s) => s.getName() === "WsListener");
  return symbol === undefined ? undefined : checker.getDeclaredTypeOfSymbol(symbol);
}

/**
 * Why `type` is not a listener fw can call, or undefined when it is one. The generated row
 * passes the export to `Route.ws`, so anything `WsListener` does not accept would fail there,
 * on the generated module; here it is named on the socket's own file.
 */
export function listenerProblem(c: ListenerChecking, type: ts.Type, at: ts.Node): string | undefined {
  if (c.wsListener !== undefined && c.checker.isTypeAssignableTo(type, c.wsListener)) return undefined;
  const member = (name: string): ts.Type | undefined => {
    const symbol = type.getProperty(name);
    return symbol === undefined ? undefined : c.checker.getNonNullableType(c.checker.getTypeOfSymbolAtLocation(symbol, at));
  };
  const message = member("message");
  if (message === undefined) {
    const dom = type.getProperties().map((p) => p.getName()).filter((n) => /^on[A-Za-z]/.test(n));
    return dom.length > 0
      ? `it has ${dom.map((n) => `\`${n}\``).join(", ")} but no \`message\`: fw calls \`open\`, \`message\` and \`close\`, not DOM-style \`on…\` handlers`
      : "it has no `message`, which fw calls with each text message";
  }
  const wrong = signatureProblem(c, "message", message, 2);
  if (wrong !== undefined) return wrong;
  for (const name of ["open", "close"]) {
    const other = member(name);
    const problem = other === undefined ? undefined : signatureProblem(c, name, other, 1);
    if (problem !== undefined) return problem;
  }
  if (c.wsListener === undefined) return undefined; // without fw's type, the checks above are all there is
  return `its type \`${c.checker.typeToString(type)}\` does not fit fw's \`WsListener\``;
}

/** What is wrong with one listener member (`message` takes connection and text; `open` and `close` the connection). */
function signatureProblem(c: ListenerChecking, name: string, type: ts.Type, takes: number): string | undefined {
  const signatures = type.getCallSignatures();
  if (signatures.length === 0) return `its \`${name}\` is \`${c.checker.typeToString(type)}\`, not a function`;
  for (const signature of signatures) {
    const required = signature.getParameters().filter((p) => {
      const declaration = p.valueDeclaration;
      return declaration === undefined || !c.ts.isParameter(declaration) || (declaration.questionToken === undefined && declaration.initializer === undefined && declaration.dotDotDotToken === undefined);
    }).length;
    if (required > takes) {
      const passed = takes === 2 ? "(connection, text)" : "(connection)";
      return `its \`${name}\` takes ${required} parameters, but fw calls it with ${passed}`;
    }
    const text = signature.getParameters()[1];
    if (name === "message" && text !== undefined) {
      const accepted = c.checker.getTypeOfSymbol(text);
      if (!c.checker.isTypeAssignableTo(c.checker.getStringType(), accepted)) {
        return `its \`message\` takes the message as \`${c.checker.typeToString(accepted)}\`, but fw hands over text, a \`string\` (a binary frame closes the socket with 1003)`;
      }
    }
  }
  return undefined;
}
