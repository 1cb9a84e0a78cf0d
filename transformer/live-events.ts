import type * as ts from "typescript";
import { at, Codes } from "./diagnostics.js";
import { fwTypeName, isFwSymbol } from "./fw-symbols.js";
import type { Checking } from "./checking.js";

/** A live page's spec as live-page.ts found it. */
export interface EventsSite {
  /** The route file as messages show it. */
  readonly file: string;
  /** The export (`index`). */
  readonly name: string;
  readonly source: ts.SourceFile;
  readonly declaration: ts.Declaration | undefined;
  /** The object literal passed to `live()`, when the build can read it. */
  readonly spec: ts.ObjectLiteralExpression | undefined;
}

/** How the markup sends an event, which fixes what its payload is. */
type How = "fw-click" | "fw-keydown" | "fw-keyup" | "fw-change on an input" | "fw-change on a <form>" | "fw-submit" | "view.form" | "view.form's change";

/** One event the markup names. */
interface Binding {
  readonly event: string;
  readonly how: How;
  readonly node: ts.Node;
}

/** What a handler declares its payload (second parameter) to be. */
type Payload =
  | { readonly kind: "untyped" }
  | { readonly kind: "form"; readonly model: string; readonly written: string; readonly node: ts.Node }
  | { readonly kind: "other"; readonly type: ts.Type; readonly written: string; readonly node: ts.Node };

/** Events whose payload is a form's fields (FormData), rather than an element's values. */
const FORM_SENT: ReadonlySet<How> = new Set(["fw-change on a <form>", "fw-submit", "view.form", "view.form's change"]);

const ATTRIBUTES = new Set(["fw-click", "fw-submit", "fw-change", "fw-keydown", "fw-keyup"]);

/**
 * Checks a live page's events against its markup (issue 23, compile-time): every event the
 * route file's markup names (`fw-click="…"` and the other `fw-` attributes with a literal value,
 * `view.form("…", { change: "…" })`) has a handler in the `events` literal, and each handler's
 * payload type fits how the markup sends it. Answers the form events (`FormInput<M>` of a model
 * the build knows) with their models, or undefined after an error. An `events` the build cannot
 * read is a warning: nothing is checked, and no event reads a form.
 */
export function checkEvents(c: Checking, site: EventsSite): { readonly event: string; readonly model: string }[] | undefined {
  const handlers = site.spec === undefined ? undefined : readEvents(c, site.spec);
  if (handlers === undefined) {
    const where = site.spec?.properties.find((p) => p.name !== undefined && memberName(c, p.name) === "events") ?? site.declaration;
    c.findings.push({
      code: Codes.liveEventsUnreadable,
      category: "warning",
      file: site.source,
      ...(where === undefined ? {} : at(where)),
      message:
        `${site.file}: the build cannot read the events of the live page \`${site.name}\`, so the events its markup names are not checked and no event reads a model's form. ` +
        `Write them inline: export const ${site.name} = live({ mount, render, events: { increment: (state, values: LiveValues) => …, save: (state, input: FormInput<Post>) => … } });`,
    });
    return [];
  }
  let ok = true;
  const error = (code: typeof Codes.liveUnknownEvent | typeof Codes.liveEventPayload, node: ts.Node, message: string): void => {
    ok = false;
    c.findings.push({ code, category: "error", file: site.source, ...at(node), message: `${site.file}: ${message}` });
  };
  const known = [...handlers.keys()];
  const listed = known.length === 0 ? "it has none" : `it has ${known.map((k) => `\`${k}\``).join(", ")}`;
  const bindings = markupBindings(c, site.source);
  for (const binding of bindings) {
    const payload = handlers.get(binding.event);
    if (payload === undefined) {
      const example = FORM_SENT.has(binding.how) ? `${binding.event}: (state, input: FormInput<Model>) => …` : `${binding.event}: (state, values: LiveValues) => …`;
      error(
        Codes.liveUnknownEvent,
        binding.node,
        `the markup sends the event "${binding.event}" (${binding.how}), but the live page \`${site.name}\` has no handler of that name in \`events\` (${listed}). Add \`${example}\` to its events, or fix the name.`,
      );
      continue;
    }
    const problem = payloadProblem(c, binding, payload);
    if (problem !== undefined) error(Codes.liveEventPayload, payload.kind === "untyped" ? binding.node : payload.node, problem);
  }
  const forms: { event: string; model: string }[] = [];
  for (const [event, payload] of handlers) {
    if (payload.kind !== "form" || c.brokenModels.has(payload.model)) continue;
    if (!c.models.has(payload.model) && !c.formModels.has(payload.model)) {
      error(
        Codes.liveEventPayload,
        payload.node,
        `the handler of the event "${event}" takes \`${payload.written}\`, but ${payload.model} is not a model the build knows, so fw has no Form to read the submission with. ` +
          `Derive its form: export const ${payload.model} = derives<${payload.model}>(Form); (with Resource too for its pages; or take \`values: LiveValues\`, the raw text).`,
      );
      continue;
    }
    forms.push({ event, model: payload.model });
  }
  return ok ? forms : undefined;
}

/** Why a handler's payload does not fit how the markup sends its event, or undefined. */
function payloadProblem(c: Checking, binding: Binding, payload: Payload): string | undefined {
  const bound = `the event "${binding.event}" is sent by ${binding.how}`;
  if (binding.how === "view.form" && payload.kind !== "form") {
    const written = payload.kind === "untyped" ? "no payload type" : `\`${payload.written}\``;
    return `${bound}, which renders a model's form, but its handler declares ${written}, so the build cannot tell which model's fields to render and read. Type the payload \`input: FormInput<Model>\` with a model deriving Form.`;
  }
  if (payload.kind === "untyped") return undefined;
  if (!FORM_SENT.has(binding.how)) {
    const sends = binding.how === "fw-click" ? "the element's fw-value-* attributes" : binding.how === "fw-change on an input" ? "the input's name and value" : "the key and the input's value";
    if (payload.kind === "form") {
      return `${bound}, which sends ${sends} as \`LiveValues\`, not a form, but its handler takes \`${payload.written}\`. Type the payload \`values: LiveValues\`, or send the event from a form (view.form("${binding.event}") or fw-submit on a <form>).`;
    }
    if (!acceptsValues(c, payload.type)) {
      return `${bound}, which sends ${sends} as \`LiveValues\` (text per name), but its handler takes \`${payload.written}\`. Type the payload \`values: LiveValues\`.`;
    }
    return undefined;
  }
  if (payload.kind === "form" || acceptsValues(c, payload.type)) return undefined;
  return `${bound}, which sends the form's fields, but its handler takes \`${payload.written}\`. Type the payload \`input: FormInput<Model>\` (the fields read and checked by the model's Form) or \`values: LiveValues\` (the raw text).`;
}

/** `LiveValues` (text per name) can be handed to a payload of this type. */
function acceptsValues(c: Checking, type: ts.Type): boolean {
  if ((type.flags & (c.ts.TypeFlags.Any | c.ts.TypeFlags.Unknown)) !== 0) return true;
  return c.liveValues === undefined || c.checker.isTypeAssignableTo(c.liveValues, type);
}

/**
 * The handlers of the `events` literal by name, with their payloads; an empty map when the page
 * declares no events; undefined when `events` is not a literal the build can read (a variable,
 * a spread, a computed name).
 */
function readEvents(c: Checking, spec: ts.ObjectLiteralExpression): Map<string, Payload> | undefined {
  const handlers = new Map<string, Payload>();
  if (spec.properties.some((p) => c.ts.isSpreadAssignment(p) || (p.name !== undefined && memberName(c, p.name) === undefined))) return undefined;
  const events = spec.properties.find((p) => p.name !== undefined && memberName(c, p.name) === "events");
  if (events === undefined) return handlers;
  if (!c.ts.isPropertyAssignment(events)) return undefined;
  let literal: ts.Expression = events.initializer;
  while (c.ts.isParenthesizedExpression(literal) || c.ts.isSatisfiesExpression(literal) || c.ts.isAsExpression(literal)) literal = literal.expression;
  if (!c.ts.isObjectLiteralExpression(literal)) return undefined;
  for (const property of literal.properties) {
    const name = property.name === undefined ? undefined : memberName(c, property.name);
    if (name === undefined || c.ts.isSpreadAssignment(property)) return undefined;
    handlers.set(name, payloadOf(c, property));
  }
  return handlers;
}

/** What a handler (a method, a function value, or a name of one) declares its second parameter to be. */
function payloadOf(c: Checking, property: ts.ObjectLiteralElementLike): Payload {
  const node = c.ts.isPropertyAssignment(property) ? property.initializer : c.ts.isShorthandPropertyAssignment(property) ? property.name : property;
  const signature = c.checker.getTypeAtLocation(node).getCallSignatures()[0];
  const parameter = signature?.getParameters()[1];
  if (parameter === undefined) return { kind: "untyped" };
  const declaration = parameter.valueDeclaration;
  const typeNode = declaration !== undefined && c.ts.isParameter(declaration) ? declaration.type : undefined;
  if (typeNode === undefined || declaration === undefined) return { kind: "untyped" };
  const type = c.checker.getTypeAtLocation(typeNode);
  const model = formModel(c, typeNode, type);
  const written = typeNode.getText();
  if (model !== undefined) return { kind: "form", model, written, node: typeNode };
  return { kind: "other", type, written, node: typeNode };
}

/**
 * M of a payload typed `FormInput<M>`: written so, through the app's own alias of it
 * (`type PostInput = FormInput<Post>`), or through an alias the checker keeps; else undefined.
 */
function formModel(c: Checking, node: ts.TypeNode, type: ts.Type, depth = 0): string | undefined {
  if (c.ts.isTypeReferenceNode(node)) {
    const written = c.checker.getSymbolAtLocation(node.typeName);
    if (isFwSymbol(c.checker, written, "live", "FormInput", c.ts)) {
      const argument = node.typeArguments?.[0];
      return argument === undefined ? undefined : typeName(c, c.checker.getTypeFromTypeNode(argument));
    }
    const target = written !== undefined && written.flags & c.ts.SymbolFlags.Alias ? c.checker.getAliasedSymbol(written) : written;
    const alias = target?.getDeclarations()?.find(c.ts.isTypeAliasDeclaration);
    if (alias !== undefined && alias.typeParameters === undefined && depth < 8 && !alias.getSourceFile().isDeclarationFile) {
      const found = formModel(c, alias.type, c.checker.getTypeFromTypeNode(alias.type), depth + 1);
      if (found !== undefined) return found;
    }
  }
  if (fwTypeName(type, "live") === "FormInput") {
    const argument = type.aliasTypeArguments?.[0];
    return argument === undefined ? undefined : typeName(c, argument);
  }
  return undefined;
}

function typeName(c: Checking, type: ts.Type): string {
  return (type.aliasSymbol ?? type.getSymbol())?.getName() ?? c.checker.typeToString(type);
}

/** Every event the route file's markup names with a literal: `fw-` attributes and `view.form` calls. */
function markupBindings(c: Checking, source: ts.SourceFile): Binding[] {
  const found: Binding[] = [];
  const visit = (node: ts.Node): void => {
    if (c.ts.isJsxAttribute(node)) {
      const attribute = node.name.getText();
      const event = attribute === undefined || !ATTRIBUTES.has(attribute) ? undefined : literalValue(c, node.initializer);
      if (event !== undefined) found.push({ event, how: howOf(c, attribute, node), node });
    } else if (c.ts.isCallExpression(node) && c.ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "form") {
      if (isFwSymbol(c.checker, c.checker.getSymbolAtLocation(node.expression.name), "live", "form", c.ts)) formBindings(c, node, found);
    }
    c.ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function formBindings(c: Checking, call: ts.CallExpression, found: Binding[]): void {
  const [event, props] = call.arguments;
  if (event !== undefined && (c.ts.isStringLiteral(event) || c.ts.isNoSubstitutionTemplateLiteral(event))) found.push({ event: event.text, how: "view.form", node: event });
  if (props === undefined || !c.ts.isObjectLiteralExpression(props)) return;
  for (const property of props.properties) {
    if (!c.ts.isPropertyAssignment(property) || memberName(c, property.name) !== "change") continue;
    const value = property.initializer;
    if (c.ts.isStringLiteral(value) || c.ts.isNoSubstitutionTemplateLiteral(value)) found.push({ event: value.text, how: "view.form's change", node: value });
  }
}

function literalValue(c: Checking, initializer: ts.JsxAttributeValue | undefined): string | undefined {
  if (initializer === undefined) return undefined;
  if (c.ts.isStringLiteral(initializer)) return initializer.text;
  if (c.ts.isJsxExpression(initializer) && initializer.expression !== undefined) {
    const expression = initializer.expression;
    if (c.ts.isStringLiteral(expression) || c.ts.isNoSubstitutionTemplateLiteral(expression)) return expression.text;
  }
  return undefined;
}

function howOf(c: Checking, attribute: string, node: ts.JsxAttribute): How {
  if (attribute !== "fw-change") return attribute as How;
  const element = node.parent.parent;
  return element.tagName.getText() === "form" ? "fw-change on a <form>" : "fw-change on an input";
}

/** A property's name as written, when it is a plain one (not computed). */
export function memberName(c: Checking, name: ts.PropertyName): string | undefined {
  if (c.ts.isIdentifier(name) || c.ts.isStringLiteral(name) || c.ts.isNumericLiteral(name) || c.ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  return undefined;
}
