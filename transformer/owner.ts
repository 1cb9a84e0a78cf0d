import type * as ts from "typescript";
import { at, Codes } from "./diagnostics.js";
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
 * The owner field of a model declaring `owned` (spec 2.13): its one field of type `Id<X>` with
 * X not the model itself. None, or several, fails the build naming the model and what to write.
 */
export function ownerOf(s: Shaping, model: Model, shape: ModelShape): Owner | undefined {
  const candidates = shape.references;
  if (candidates.length === 1) return candidates[0];
  const found =
    candidates.length === 0
      ? "has no field of type Id<User> to name its owner"
      : `has ${candidates.length} fields of type Id<…> (${candidates.map((c) => `${c.field}: Id<${c.model}>`).join(", ")}), so fw cannot tell which one names the owner`;
  s.findings.push({
    code: Codes.ownerField,
    category: "error",
    file: model.call.getSourceFile(),
    ...at(model.call as ts.Node),
    message: `${s.shown(model.file)}: the model ${model.name} declares \`owned\` but ${found}. Give it exactly one, e.g. \`author: Id<User>\` (never shown in a form: Create fills it from the signed-in user).`,
  });
  return undefined;
}
