/**
 * The admin back office (issue 41, item 5): the app's one `backOffice(auth, { … })` declaration,
 * found and read at build time. The build checks it (an exported top-level const; `models` the
 * companions of derived models, written inline; `role` one of the app's roles, which it reads
 * from the user type; `at` a literal path), and hands the generated table what it needs to
 * mount it: the models' specs and stores, and the app's roles.
 */
import type * as ts from "typescript";
import { at, Codes, type Finding } from "./diagnostics.js";
import type { BackOfficeDeclaration, Derived } from "./emit.js";
import { fwTypeName, isFwSymbol } from "./fw-symbols.js";
import { modelRoutes, type KnownRoute } from "./known-routes.js";
import type { Model } from "./models.js";


interface Reading {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly shown: (file: string) => string;
  readonly findings: Finding[];
}

const DEFAULT_AT = "/admin";
const DEFAULT_ROLE = "admin";
const LITERAL_PATH = /^(\/[A-Za-z0-9._~-]+)+$/;
const EXAMPLE = "export const admin = backOffice(auth, { models: [Post, Comment] });";

/**
 * The app's back office: its declaration read and checked, undefined when there is none or it
 * failed the build (each mistake a finding in the declaring file: TS91100–TS91103).
 */
export function findBackOffice(r: Reading, files: readonly ts.SourceFile[], models: readonly Model[], derived: readonly Derived[], broken: ReadonlySet<string>): BackOfficeDeclaration | undefined {
  const calls = files.flatMap((source) => (source.isDeclarationFile || source.fileName.includes("/node_modules/") || !source.text.includes("backOffice") ? [] : callsIn(r, source)));
  const placed: { readonly call: ts.CallExpression; readonly name: string }[] = [];
  for (const call of calls) {
    const name = exportedConst(r, call);
    if (name === undefined) fail(r, call, Codes.backOfficePlace, `the back office must be declared at the top level of a module, exported as a const, so the build can mount it: ${EXAMPLE}`);
    else placed.push({ call, name });
  }
  const [first, ...others] = placed;
  if (first === undefined) return undefined;
  for (const other of others) {
    fail(r, other.call, Codes.backOfficePlace, `an app has one back office, and ${r.shown(first.call.getSourceFile().fileName)} declares it already: list every model in that declaration's \`models\`.`);
  }
  return read(r, first.call, first.name, models, derived, broken);
}

function callsIn(r: Reading, source: ts.SourceFile): ts.CallExpression[] {
  const found: ts.CallExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (r.ts.isCallExpression(node)) {
      const callee = r.ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
      if (isFwSymbol(r.checker, r.checker.getSymbolAtLocation(callee), "backOffice", "backOffice", r.ts)) found.push(node);
    }
    r.ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function read(r: Reading, call: ts.CallExpression, exportName: string, models: readonly Model[], derived: readonly Derived[], broken: ReadonlySet<string>): BackOfficeDeclaration | undefined {
  const options = call.arguments[1];
  if (options === undefined || !r.ts.isObjectLiteralExpression(options)) {
    fail(r, options ?? call, Codes.backOfficeModel, `write the back office's options inline, as an object the build can read: ${EXAMPLE}`);
    return undefined;
  }
  const listed = modelsOf(r, options, models, derived, broken);
  const mount = atOf(r, options);
  const roles = rolesOf(r, call);
  const role = roleOf(r, options, roles);
  if (listed === undefined || mount === undefined || roles === undefined || role === undefined) return undefined;
  const file = call.getSourceFile().fileName;
  return { file, shown: r.shown(file), exportName, at: mount, role, roles: roles.names, models: listed, teams: keepsTeams(r, call.arguments[0]) };
}

/**
 * Whether the sign-in the back office is handed keeps teams: its const is initialised by
 * `formSignIn({ …, teams: true })` (then the back office has its teams pages, which the path
 * checks learn of). A sign-in the build cannot follow counts as keeping none: its teams pages are
 * still served, unknown to the path checks alone.
 */
function keepsTeams(r: Reading, auth: ts.Expression | undefined): boolean {
  if (auth === undefined || !r.ts.isIdentifier(auth)) return false;
  let symbol = r.checker.getSymbolAtLocation(auth);
  if (symbol !== undefined && symbol.flags & r.ts.SymbolFlags.Alias) symbol = r.checker.getAliasedSymbol(symbol);
  const declaration = symbol?.valueDeclaration;
  const made = declaration !== undefined && r.ts.isVariableDeclaration(declaration) ? declaration.initializer : undefined;
  const options = made !== undefined && r.ts.isCallExpression(made) ? made.arguments[0] : undefined;
  if (options === undefined || !r.ts.isObjectLiteralExpression(options)) return false;
  const teams = property(r, options, "teams");
  return teams !== undefined && r.ts.isPropertyAssignment(teams) && teams.initializer.kind === r.ts.SyntaxKind.TrueKeyword;
}

/** The name of the exported top-level const the call initialises, or undefined. */
function exportedConst(r: Reading, call: ts.CallExpression): string | undefined {
  const declaration = call.parent;
  if (!r.ts.isVariableDeclaration(declaration) || declaration.initializer !== call || !r.ts.isIdentifier(declaration.name)) return undefined;
  const list = declaration.parent;
  const statement = list.parent;
  if ((list.flags & r.ts.NodeFlags.Const) === 0 || !r.ts.isVariableStatement(statement) || !r.ts.isSourceFile(statement.parent)) return undefined;
  const exported = statement.modifiers?.some((m) => m.kind === r.ts.SyntaxKind.ExportKeyword) === true;
  return exported ? declaration.name.text : undefined;
}

function property(r: Reading, options: ts.ObjectLiteralExpression, name: string): ts.ObjectLiteralElementLike | undefined {
  return options.properties.find((p) => p.name !== undefined && (r.ts.isIdentifier(p.name) || r.ts.isStringLiteral(p.name)) && p.name.text === name);
}

/** `models: [Post, Comment]`: each the companion of a model the table derives (with a store), once. */
function modelsOf(r: Reading, options: ts.ObjectLiteralExpression, models: readonly Model[], derived: readonly Derived[], broken: ReadonlySet<string>): string[] | undefined {
  const written = property(r, options, "models");
  if (written === undefined || !r.ts.isPropertyAssignment(written) || !r.ts.isArrayLiteralExpression(written.initializer)) {
    fail(r, written ?? options, Codes.backOfficeModel, `the back office's \`models\` must be written inline, an array of the models' companions the build can read: ${EXAMPLE}`);
    return undefined;
  }
  const names: string[] = [];
  let ok = true;
  for (const element of written.initializer.elements) {
    const model = modelOf(r, element, models);
    if (model === undefined) {
      ok = false;
      fail(r, element, Codes.backOfficeModel, `\`${element.getText()}\` in the back office's \`models\` is not a model: name a model's companion, the const \`derives<M>(…)\` made (\`Post\`, imported from src/models/Post.ts).`);
      continue;
    }
    if (broken.has(model.name)) {
      ok = false; // its own diagnostic says what to fix
      continue;
    }
    if (!derived.some((d) => d.model === model)) {
      ok = false;
      fail(r, element, Codes.backOfficeModel, `the model ${model.name} derives no Resource, so fw keeps no store of its rows for the back office to show: derive it with Resource, derives<${model.name}>(Form, Resource, { actions: Actions.only(), … }) for no pages of its own (${r.shown(model.file)}).`);
      continue;
    }
    if (names.includes(model.name)) {
      ok = false;
      fail(r, element, Codes.backOfficeModel, `the model ${model.name} is listed twice in the back office's \`models\`: list it once.`);
      continue;
    }
    names.push(model.name);
  }
  return ok ? names : undefined;
}

/** The model whose companion an element of `models` names: a const (or object property) initialised by its `derives` call. */
function modelOf(r: Reading, element: ts.Expression, models: readonly Model[]): Model | undefined {
  const named = r.ts.isIdentifier(element) ? element : r.ts.isPropertyAccessExpression(element) ? element.name : undefined;
  if (named === undefined) return undefined;
  let symbol = r.checker.getSymbolAtLocation(named);
  if (symbol !== undefined && symbol.flags & r.ts.SymbolFlags.Alias) symbol = r.checker.getAliasedSymbol(symbol);
  const declaration = symbol?.valueDeclaration;
  if (declaration === undefined || !(r.ts.isVariableDeclaration(declaration) || r.ts.isPropertyAssignment(declaration))) return undefined;
  const initializer = declaration.initializer;
  return initializer === undefined ? undefined : models.find((model) => model.call === initializer);
}

/** `at: "/admin"` (the default when left out): a literal path of literal segments. */
function atOf(r: Reading, options: ts.ObjectLiteralExpression): string | undefined {
  const written = property(r, options, "at");
  if (written === undefined) return DEFAULT_AT;
  const value = r.ts.isPropertyAssignment(written) ? written.initializer : undefined;
  if (value !== undefined && (r.ts.isStringLiteral(value) || r.ts.isNoSubstitutionTemplateLiteral(value)) && LITERAL_PATH.test(value.text)) return value.text;
  fail(r, written, Codes.backOfficeAt, `the back office's \`at\` must be a string literal path of plain segments the build can read, like at: "/admin" (the default when left out).`);
  return undefined;
}

/** The app's roles, read from the sign-in's user type (`roles?: readonly Role[]`, `Role` a union of names). */
function rolesOf(r: Reading, call: ts.CallExpression): { readonly names: string[]; readonly user: string } | undefined {
  const auth = call.arguments[0];
  const type = auth === undefined ? undefined : r.checker.getTypeAtLocation(auth);
  if (auth === undefined || type === undefined || fwTypeName(type, "formSignIn") !== "FormSignIn") {
    fail(r, auth ?? call, Codes.backOfficeRole, `the back office's first argument is the app's form sign-in (the \`auth\` formSignIn made), whose users it shows and whose role guard keeps it: ${EXAMPLE}`);
    return undefined;
  }
  const user = r.checker.getTypeArguments(type as ts.TypeReference)[0];
  const userName = user === undefined ? "User" : r.checker.typeToString(user);
  const roles = user?.getProperty("roles");
  const fix = `declare them on the user type: \`roles?: readonly Role[]\` with \`export type Role = "admin" | "editor"\` (the names your app uses).`;
  if (user === undefined || roles === undefined) {
    fail(r, auth, Codes.backOfficeRole, `the app's user type ${userName} declares no roles, so nobody can hold the back office's role and its forms have none to offer: ${fix}`);
    return undefined;
  }
  const element = r.checker.getIndexTypeOfType(r.checker.getNonNullableType(r.checker.getTypeOfSymbol(roles)), r.ts.IndexKind.Number);
  const members = element === undefined ? [] : element.isUnion() ? element.types : [element];
  const names = members.flatMap((member) => (member.isStringLiteral() ? [member.value] : []));
  if (names.length === 0 || names.length !== members.length) {
    fail(r, auth, Codes.backOfficeRole, `the roles of the app's user type ${userName} are not a union of names the build can list (a role comes from a fixed list in the back office's forms, never typed in): ${fix}`);
    return undefined;
  }
  return { names: [...names].sort(), user: userName };
}

/** `role: "admin"` (the default when left out): one of the app's roles. */
function roleOf(r: Reading, options: ts.ObjectLiteralExpression, roles: { readonly names: readonly string[]; readonly user: string } | undefined): string | undefined {
  const written = property(r, options, "role");
  const value = written !== undefined && r.ts.isPropertyAssignment(written) ? written.initializer : undefined;
  if (written !== undefined && (value === undefined || !(r.ts.isStringLiteral(value) || r.ts.isNoSubstitutionTemplateLiteral(value)))) {
    fail(r, written, Codes.backOfficeRole, `the back office's \`role\` must be a string literal the build can read: role: "admin" (the default when left out).`);
    return undefined;
  }
  const role = value === undefined ? DEFAULT_ROLE : (value as ts.StringLiteral).text;
  if (roles === undefined || roles.names.includes(role)) return roles === undefined ? undefined : role;
  const named = written === undefined ? `opens to the role "${role}" (the default)` : `names the role "${role}"`;
  fail(r, written ?? options, Codes.backOfficeRole, `the back office ${named}, which is not one of the app's roles (${roles.names.join(", ")}, from ${roles.user}'s roles): add "${role}" to the Role union, or name one of them: backOffice(auth, { role: "${roles.names[0]}", … }).`);
  return undefined;
}

function fail(r: Reading, node: ts.Node, code: Finding["code"], message: string): void {
  const source = node.getSourceFile();
  r.findings.push({ code, category: "error", file: source, ...at(node), message: `${r.shown(source.fileName)}: ${message}` });
}

/**
 * The back office's routes as the path checks and the typed path builder know them: its front
 * page, each model's pages under it, the users' pages and forms, the teams' (when the sign-in
 * keeps teams), the audit log.
 */
export function backOfficeRoutes(office: BackOfficeDeclaration, derived: readonly Derived[]): KnownRoute[] {
  const id = [{ name: "id", type: "PathValue" }];
  const users = ["grant", "revoke", "lock", "unlock", "sign-out"].map((action): KnownRoute => ({ method: "POST", pattern: `${office.at}/users/:id/${action}`, params: id }));
  const models = office.models.flatMap((name) => {
    const d = derived.find((m) => m.model.name === name);
    if (d === undefined) return [];
    const key = d.shape.key;
    return modelRoutes(name, { name: key, type: "", keyOf: { file: d.model.file, typePath: d.model.typePath, key } }, undefined).map((route) => ({ ...route, pattern: office.at + route.pattern }));
  });
  return [
    { method: "GET", pattern: office.at, params: [] },
    ...models,
    { method: "GET", pattern: `${office.at}/users`, params: [] },
    { method: "GET", pattern: `${office.at}/users/:id`, params: id },
    ...users,
    ...(office.teams ? teamRoutes(office.at) : []),
    { method: "GET", pattern: `${office.at}/audit`, params: [] },
  ];
}

/** The teams' pages and forms (runtime/admin/teams-section.tsx). */
function teamRoutes(at: string): KnownRoute[] {
  const id = { name: "id", type: "PathValue" };
  const member = [id, { name: "member", type: "PathValue" }];
  return [
    { method: "GET", pattern: `${at}/teams`, params: [] },
    { method: "GET", pattern: `${at}/teams/:id`, params: [id] },
    { method: "POST", pattern: `${at}/teams/:id/members/:member/role`, params: member },
    { method: "POST", pattern: `${at}/teams/:id/members/:member/remove`, params: member },
  ];
}
