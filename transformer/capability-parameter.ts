import type * as ts from "typescript";
import { fail, type Checking, type Site } from "./checking.js";
import { Codes } from "./diagnostics.js";
import { fwTypeName } from "./fw-symbols.js";

/** One capability a handler asks for in its second parameter, and who supplies it. */
export interface CapabilityUse {
  readonly name: string;
  /** The type as the handler wrote it, for messages. */
  readonly type: string;
  /** The type itself, to check what the capabilities module exports against. */
  readonly required: ts.Type;
  /**
   * `Store<M>` (or `ScopedStore<M>`, of an owned model) of a known model: supplied by the
   * model's store, not the capabilities module (a broken model's leaves the row out).
   */
  readonly store?: string;
  /** Asked for as `ScopedStore<M>`: every row of the owned model, by name (viewer-stores.ts hands `Store<M>` as the viewer's rows). */
  readonly scoped?: true;
}

/** The second parameter: an object type whose properties name the capabilities. */
export function capabilityUses(c: Checking, site: Site, parameter: ts.Symbol, capabilities: ts.Type): CapabilityUse[] | undefined {
  let ok = true;
  const uses = capabilities.getProperties().map((property): CapabilityUse => {
    const required = c.checker.getTypeOfSymbol(property);
    const stored = storedModel(c, required);
    const use = { name: property.getName(), type: c.checker.typeToString(required), required };
    if (stored?.scoped === true && !c.ownedModels.has(stored.model) && !c.brokenModels.has(stored.model)) {
      ok = false;
      const message = `\`${site.name}\` asks for \`${use.name}: ${use.type}\`, but ${stored.model} declares no \`owned\`, so its rows belong to nobody and its store is not a ScopedStore: ask for \`${use.name}: Store<${stored.model}>\`.`;
      fail(c, site, Codes.mistypedCapability, message);
    }
    if (stored === undefined) return use;
    // ScopedStore<M> and AllRows<M> name every row: handed as they are, never narrowed to the viewer.
    return stored.scoped || stored.all === true ? { ...use, store: stored.model, scoped: true } : { ...use, store: stored.model };
  });
  const notObject = (capabilities.flags & c.ts.TypeFlags.Object) === 0 || capabilities.getCallSignatures().length > 0;
  if (notObject || isBareCapability(c, parameter, capabilities, uses)) {
    fail(c, site, Codes.capabilitiesNotObject, `the second parameter of \`${site.name}\` is ${bareCapabilityAdvice(c, parameter, capabilities)}`);
    return undefined;
  }
  return ok ? uses : undefined;
}

/**
 * The model a `Store<M>` capability is for, when M is a model the build knows; `ScopedStore<M>`
 * too (`scoped`): an owned model's store is one, and asking for it by that type is how a
 * handler reaches one user's rows (`for(user)`). Never the capabilities module's to supply.
 */
function storedModel(c: Checking, type: ts.Type): { readonly model: string; readonly scoped: boolean; readonly all?: true } | undefined {
  const scoped = fwTypeName(type, "scopedStore") === "ScopedStore";
  const all = fwTypeName(type, "store") === "AllRows";
  if (!scoped && !all && fwTypeName(type, "store") !== "Store") return undefined;
  const argument = (type.aliasTypeArguments ?? c.checker.getTypeArguments(type as ts.TypeReference))[0];
  const name = argument === undefined ? undefined : (argument.aliasSymbol ?? argument.getSymbol())?.getName();
  return name !== undefined && (c.models.has(name) || c.brokenModels.has(name)) ? { model: name, scoped, ...(all ? { all: true } : {}) } : undefined;
}

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
