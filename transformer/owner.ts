import type * as ts from "typescript";
import { at, Codes, type Finding } from "./diagnostics.js";
import type { ModelShape, Shaping } from "./model-shape.js";
import type { Model } from "./models.js";

/** An owned model's owner field and the model its key points at (`author: Id<User>`). */
export interface Owner {
  readonly field: string;
  readonly model: string;
}

/** True when the model's `derives` call passes options whose type has a (non-optional) `owned`. */
export function declaresOwned(s: Shaping, model: Model): boolean {
  return model.call.arguments.some((argument) => {
    const owned = s.checker.getTypeAtLocation(argument).getProperty("owned");
    return owned !== undefined && (owned.flags & s.ts.SymbolFlags.Optional) === 0;
  });
}

/**
 * Spec 2.13: an owned model declares only `owned`, which is its guard (owned implies guarded).
 * One that declares `guarded` as well would have `guarded` decide who may reach its routes, and
 * `owned`'s actions never read: refused (TS91030), naming what to write instead. True when so.
 */
export function guardedAndOwned(s: Shaping, model: Model): boolean {
  const both = model.call.arguments.some((argument) => {
    const guarded = s.checker.getTypeAtLocation(argument).getProperty("guarded");
    return guarded !== undefined && (guarded.flags & s.ts.SymbolFlags.Optional) === 0;
  });
  if (!both) return false;
  report(
    s,
    model,
    Codes.guardedAndOwned,
    `the model ${model.name} declares both \`guarded\` and \`owned\`, and \`owned\` is its guard already (spec 2.13): with both, \`owned\`'s actions (the roles that need a signed-in user) would never be read. ` +
      "Drop `guarded` and name those roles in `owned`: `auth.owned(covers, actions)`.",
  );
  return true;
}

/**
 * The owner field of a model declaring `owned` (spec 2.13): its one field of type `Id<X>` with
 * X not the model itself. When the declaration names its user model (`auth.owned<Post, User>`),
 * X must be that model: a field keyed by another (`Id<Note>`) would compare a user's key with
 * a note's. Without one, keys of other derived models are references (relations.ts), not
 * owners. None, or several, fails the build naming the model and what to write.
 */
export function ownerOf(s: Shaping, model: Model, shape: ModelShape, derived: ReadonlySet<string> = new Set()): Owner | undefined {
  const user = declaredUser(s, model);
  // Without a named user model, a key of another derived model is a reference, not the owner
  // (`post: Id<Post>` beside `author: Id<User>`), unless nothing else could be.
  const others = shape.references.filter((r) => !derived.has(r.model));
  const candidates = user !== undefined ? shape.references.filter((r) => r.model === user.name) : others.length > 0 ? others : shape.references;
  if (candidates.length === 1) return candidates[0];
  if (user !== undefined && candidates.length === 0 && shape.references.length > 0) {
    const found = shape.references.map((r) => `\`${r.field}: Id<${r.model}>\``).join(", ");
    const field = shape.references.length === 1 ? (shape.references[0] as Owner).field : "author";
    report(
      s,
      model,
      Codes.ownerNotUser,
      `the model ${model.name} declares \`owned\` as \`${user.declared}\`, but its owner field ${shape.references.length === 1 ? "is" : "candidates are"} ${found}: ` +
        `the owner field holds the key of the user model, ${user.name}. Write \`${field}: Id<${user.name}>\`, or name the right user model in \`owned<${model.name}, …>\`.`,
    );
    return undefined;
  }
  const found =
    candidates.length === 0
      ? `has no field of type Id<${user?.name ?? "User"}> to name its owner`
      : `has ${candidates.length} fields of type Id<…> (${candidates.map((c) => `${c.field}: Id<${c.model}>`).join(", ")}), so fw cannot tell which one names the owner`;
  report(
    s,
    model,
    Codes.ownerField,
    `the model ${model.name} declares \`owned\` but ${found}. Give it exactly one, e.g. \`author: Id<${user?.name ?? "User"}>\` (never shown in a form: Create fills it from the signed-in user).`,
  );
  return undefined;
}

/** The user model an `owned` declaration names (`Owned<Post, User>`), when it names one. */
function declaredUser(s: Shaping, model: Model): { readonly name: string; readonly declared: string } | undefined {
  for (const argument of model.call.arguments) {
    const owned = s.checker.getTypeAtLocation(argument).getProperty("owned");
    if (owned === undefined) continue;
    const declaration = s.checker.getTypeOfSymbolAtLocation(owned, argument);
    const phantom = s.checker.getNonNullableType(declaration).getProperty("user");
    if (phantom === undefined) return undefined;
    // `owned(…)` without type arguments leaves U `unknown`: nothing to check against.
    const written = s.checker.getTypeOfSymbolAtLocation(phantom, argument);
    if ((written.flags & (s.ts.TypeFlags.Unknown | s.ts.TypeFlags.Any)) !== 0) return undefined;
    const user = s.checker.getNonNullableType(written);
    const name = (user.aliasSymbol ?? user.getSymbol())?.getName();
    if (name === undefined || name === "__type") return undefined;
    return { name, declared: s.checker.typeToString(s.checker.getNonNullableType(declaration)) };
  }
  return undefined;
}

function report(s: Shaping, model: Model, code: Finding["code"], message: string): void {
  s.findings.push({ code, category: "error", file: model.call.getSourceFile(), ...at(model.call as ts.Node), message: `${s.shown(model.file)}: ${message}` });
}

/** True when the model's options declare a `policy` (issue 41). */
export function declaresPolicy(s: Shaping, model: Model): boolean {
  return model.call.arguments.some((argument) => {
    const policy = s.checker.getTypeAtLocation(argument).getProperty("policy");
    return policy !== undefined && (policy.flags & s.ts.SymbolFlags.Optional) === 0;
  });
}

/**
 * TS91032: a policy is the model's guard and its read rule, so `guarded`, `owned` or
 * `publicWhen` beside it would be a second answer to the same question. True when so (reported).
 */
export function policyWithOthers(s: Shaping, model: Model): boolean {
  const others = ["guarded", "owned", "publicWhen"].filter((name) =>
    model.call.arguments.some((argument) => {
      const property = s.checker.getTypeAtLocation(argument).getProperty(name);
      return property !== undefined && (property.flags & s.ts.SymbolFlags.Optional) === 0;
    }),
  );
  if (others.length === 0) return false;
  report(
    s,
    model,
    Codes.policyAndGuard,
    `the model ${model.name} declares a \`policy\` and ${others.map((o) => `\`${o}\``).join(" and ")}: the policy says who may reach each action and which rows each viewer reads, so it stands alone. ` +
      `Drop ${others.join(" and ")} and say it in the policy (can.signedIn, can.own, can.where("published", true)).`,
  );
  return true;
}

/**
 * The options object a policy is made from (`auth.policy<Post, User>({ owner: "author" }, …)`):
 * undefined when the model declares no policy; null after a finding (not written inline, so the
 * build cannot read it).
 */
function policyInit(s: Shaping, model: Model): ts.ObjectLiteralExpression | undefined | null {
  for (const argument of model.call.arguments) {
    if (!s.ts.isObjectLiteralExpression(argument)) continue;
    const property = argument.properties.find((p) => p.name !== undefined && p.name.getText() === "policy");
    if (property === undefined) continue;
    const call = s.ts.isPropertyAssignment(property) ? property.initializer : undefined;
    const init = call !== undefined && s.ts.isCallExpression(call) ? call.arguments[0] : undefined;
    if (init === undefined || !s.ts.isObjectLiteralExpression(init)) {
      report(s, model, Codes.ownerField, `the \`policy\` of ${model.name} must be written inline, so the build can read its owner field: policy: auth.policy<${model.name}, User>({ owner: "author" }, (can) => ({ … })), or { } for none.`);
      return null;
    }
    return init;
  }
  return undefined;
}

/** The field a policy's options name under `key` (`owner: "author"`): its text, undefined when absent, null after a finding. */
function policyFieldName(s: Shaping, model: Model, init: ts.ObjectLiteralExpression, key: "owner" | "team", code: Finding["code"], example: string): string | undefined | null {
  const named = init.properties.find((p) => p.name !== undefined && p.name.getText() === key);
  if (named === undefined) return undefined;
  const value = s.ts.isPropertyAssignment(named) ? named.initializer : undefined;
  if (value === undefined || !(s.ts.isStringLiteral(value) || s.ts.isNoSubstitutionTemplateLiteral(value))) {
    report(s, model, code, `the policy of ${model.name} must name its ${key} field as a string literal (${key}: "${example}"), so the build can read it.`);
    return null;
  }
  return value.text;
}

/**
 * The owner field a policy names (\`auth.policy<Post, User>({ owner: "author" }, …)\`): one of the
 * model's \`Id<User>\` fields, never shown in a form (Create fills it). Undefined when it names
 * none; null after a finding (not written so the build can read it, or not such a field).
 */
export function policyOwner(s: Shaping, model: Model, shape: ModelShape): Owner | undefined | null {
  const init = policyInit(s, model);
  if (init === undefined || init === null) return init;
  const name = policyFieldName(s, model, init, "owner", Codes.ownerField, "author");
  if (name === undefined || name === null) return name;
  const found = shape.references.find((r) => r.field === name);
  if (found === undefined) {
    const fields = shape.references.map((r) => `\`${r.field}: Id<${r.model}>\``).join(", ") || "none";
    report(s, model, Codes.ownerField, `the policy of ${model.name} names the owner field "${name}", which is not one of its Id<…> fields (${fields}): give it one, e.g. \`author: Id<User>\`, and name it.`);
    return null;
  }
  return found;
}

/** The type a team field points at: fw/auth's `Team`. */
export const TEAM_MODEL = "Team";

/**
 * The team field a policy names (\`auth.policy<Draft, User>({ team: "team" }, …)\`, issue 41): a
 * required \`Id<Team>\` field (fw/auth's \`Team\`) whose rows belong to that team, never shown in
 * a form (Create fills it with the viewer's current team). The model needs a table: teams live
 * in the database. Undefined when it names none; null after a finding (TS91033).
 */
export function policyTeam(s: Shaping, model: Model, shape: ModelShape, table: string | undefined): Owner | undefined | null {
  const init = policyInit(s, model);
  if (init === undefined || init === null) return init;
  const name = policyFieldName(s, model, init, "team", Codes.teamField, "team");
  if (name === undefined || name === null) return name;
  const found = shape.references.find((r) => r.field === name);
  const field = shape.fields.find((f) => f.name === name);
  if (found === undefined || found.model !== TEAM_MODEL) {
    const fields = shape.references.map((r) => `\`${r.field}: Id<${r.model}>\``).join(", ") || "none";
    report(s, model, Codes.teamField, `the policy of ${model.name} names the team field "${name}", which is not one of its Id<Team> fields (its Id<…> fields: ${fields}): give it \`${name}: Id<Team>\` (import type { Team } from "fw/auth") and name it.`);
    return null;
  }
  if (field?.optional === true) {
    report(s, model, Codes.teamField, `the team field \`${name}\` of ${model.name} is optional, but every row belongs to a team: write \`${name}: Id<Team>\` (Create fills it with the viewer's current team).`);
    return null;
  }
  if (table === undefined) {
    report(s, model, Codes.teamField, `the policy of ${model.name} names the team field "${name}", but its rows are in memory: teams live in the database beside the users. Give ${model.name} a table (derives<${model.name}>(…, { table: … })).`);
    return null;
  }
  return found;
}
