import { at, Codes } from "./diagnostics.js";
import { pathSegment, type Shaping } from "./model-shape.js";
import type { Model } from "./models.js";

/**
 * TS91031: models deriving Resource at one path: two of one name in two files (or two names of
 * one path, `Category` and `Categorie`). A model's path comes from its name, and its pages find
 * the other models by name (runtime/resource/relations.ts), so the app cannot have both: each of
 * them is refused, with a diagnostic in its file naming every file of the clash and the path.
 */
export function clashingModels(s: Shaping, models: readonly Model[]): Set<Model> {
  const byPath = new Map<string, Model[]>();
  for (const model of models) {
    if (!model.derivations.includes("Resource")) continue;
    const path = `/${pathSegment(model.name)}`;
    byPath.set(path, [...(byPath.get(path) ?? []), model]);
  }
  const clashing = new Set<Model>();
  for (const [path, sharing] of byPath) {
    if (sharing.length < 2) continue;
    const files = sharing.map((m) => s.shown(m.file));
    const names = [...new Set(sharing.map((m) => m.name))];
    const named = names.length === 1 ? `${sharing.length === 2 ? "both" : "all"} named ${names[0]}` : `named ${names.join(", ")}`;
    for (const model of sharing) {
      clashing.add(model);
      s.findings.push({
        code: Codes.modelPathTaken,
        category: "error",
        file: model.call.getSourceFile(),
        ...at(model.call),
        message:
          `${s.shown(model.file)}: the models in ${list(files)} are ${named}, so ${sharing.length === 2 ? "both" : "all"} derive ${path}: a model's path comes from its name, and its pages find the other models by name. ` +
          `Rename one of them (Archived${model.name} would derive /${pathSegment(`Archived${model.name}`)}).`,
      });
    }
  }
  return clashing;
}

function list(items: readonly string[]): string {
  return items.length <= 2 ? items.join(" and ") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
