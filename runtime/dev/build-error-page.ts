import { element, type Child, type Html } from "../html/node.js";
import { phrase, problemContent, WRAPPED, type Problem } from "../server/problem.js";
import type { BuildDiagnostic } from "./protocol.js";

/**
 * The page every HTML GET answers while the build is broken: a 500 problem page (same frame,
 * same fields) whose details list each diagnostic: where (file:line:column), the TS code, and
 * the message. Everything is text in the tree, so the renderer escapes it. Long diagnostics
 * wrap inside the viewport (`WRAPPED`), keeping their line breaks.
 */
export function buildErrorContent(diagnostics: readonly BuildDiagnostic[], instance: string): Html {
  const errors = diagnostics.filter((d) => d.category === "error").length;
  // `about:blank` problems keep the status phrase as their title (RFC 9457 section 4.2.1).
  const problem: Problem = {
    type: "about:blank",
    title: phrase(500),
    status: 500,
    detail: `The build failed with ${errors === 1 ? "1 error" : `${errors} errors`}; the server still runs the code of the last good build. Fix the code and this page reloads itself.`,
    instance,
  };
  return problemContent(problem, [element("ol", { class: "fw-build-errors" }, diagnostics.map(diagnosticItem))]);
}

function diagnosticItem(diagnostic: BuildDiagnostic): Child {
  return element("li", { class: `fw-build-${diagnostic.category}`, style: WRAPPED }, [
    element("code", { class: "fw-build-where" }, [where(diagnostic)]),
    " ",
    element("code", { class: "fw-build-code" }, [diagnostic.code]),
    element("pre", { class: "fw-build-message", style: WRAPPED }, [diagnostic.message]),
  ]);
}

/** `src/app/Index.tsx:3:14` (as editors and terminals link it), or "(project)" for one about no file. */
export function where(diagnostic: BuildDiagnostic): string {
  if (diagnostic.file === undefined) return "(project)";
  return diagnostic.line === undefined ? diagnostic.file : `${diagnostic.file}:${diagnostic.line}:${diagnostic.column ?? 1}`;
}
