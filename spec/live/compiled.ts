import ts from "typescript";
import * as jsxRuntime from "../../runtime/html/jsx-runtime.js";
import { raw } from "../../runtime/html/render.js";
import { templatesTransformer } from "../../transformer/jsx-templates.js";

/**
 * A page module compiled with fw's JSX pre-renderer (transformer/jsx-templates.ts), as an app's
 * are, run as CommonJS against fw's JSX runtime: its trees hold real templates with child and
 * attribute holes. (vitest itself compiles spec files without the pre-renderer.)
 */
export function compiled(source: string): Record<string, unknown> {
  const out = ts.transpileModule(source, {
    compilerOptions: { jsx: ts.JsxEmit.ReactJSX, jsxImportSource: "fw", module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    fileName: "page.tsx",
    transformers: { before: [templatesTransformer(ts)] },
  });
  if (!out.outputText.includes("jsxTemplate(")) throw new Error("the pre-renderer made no template of this module");
  const exports: Record<string, unknown> = {};
  const modules: Record<string, unknown> = { "fw/jsx-runtime": jsxRuntime, fw: { raw } };
  new Function("require", "exports", out.outputText)((name: string) => modules[name], exports);
  return exports;
}
