import type * as ts from "typescript";
import type { CapabilityUse, Checking } from "./handlers.js";

/**
 * A second parameter that is one capability on its own (`create(request, mailer: Mailer)`)
 * rather than the object of named capabilities fw supplies. Read as an object, its members
 * (`send`) would each be asked of the capabilities module. It is taken for one when it is a
 * plain name of a named type, none of its members is a capability fw can supply, and the type
 * looks like a service: a class, an interface with methods, or a name the capabilities module
 * itself exports.
 */
export function isBareCapability(c: Checking, parameter: ts.Symbol, type: ts.Type, uses: readonly CapabilityUse[]): boolean {
  const declaration = parameter.valueDeclaration;
  if (declaration === undefined || !c.ts.isParameter(declaration) || !c.ts.isIdentifier(declaration.name)) return false;
  if (declaration.type !== undefined && c.ts.isTypeLiteralNode(declaration.type)) return false;
  if (uses.some((use) => use.store !== undefined || c.capabilityModule.exports.has(use.name))) return false;
  const isClass = ((type.getSymbol()?.flags ?? 0) & c.ts.SymbolFlags.Class) !== 0;
  const hasMethods = type.getProperties().some((property) => (property.flags & c.ts.SymbolFlags.Method) !== 0);
  return isClass || hasMethods || c.capabilityModule.exports.has(declaration.name.text);
}

/** The rest of TS91011's message: what the parameter is, and how to write it as an object of capabilities. */
export function bareCapabilityAdvice(c: Checking, parameter: ts.Symbol, type: ts.Type): string {
  const declaration = parameter.valueDeclaration;
  const name = declaration !== undefined && c.ts.isParameter(declaration) && c.ts.isIdentifier(declaration.name) ? declaration.name.text : undefined;
  const written = declaration !== undefined && c.ts.isParameter(declaration) && declaration.type !== undefined ? declaration.type.getText() : c.checker.typeToString(type);
  const module = c.capabilityModule;
  // The export that would fit, when there is exactly one: its name is the member to write.
  const fitting = [...module.exports].filter(([, symbol]) => (symbol.flags & c.ts.SymbolFlags.Value) !== 0 && c.checker.isTypeAssignableTo(c.checker.getTypeOfSymbol(symbol), type));
  const member = fitting.length === 1 ? (fitting[0] as [string, ts.Symbol])[0] : name;
  const example = member === undefined ? "`{ mailer }: { mailer: Mailer }`" : `\`{ ${member} }: { ${member}: ${written} }\``;
  const shown = name === undefined ? `\`${written}\`` : `\`${name}: ${written}\`, one capability on its own`;
  const supplied = fitting.length === 1 ? ` (${module.shown} exports it as \`${member}\`)` : "";
  return `${shown}. Capabilities come in one object whose members fw supplies by name from ${module.shown}'s exports: write ${example}${supplied}.`;
}
