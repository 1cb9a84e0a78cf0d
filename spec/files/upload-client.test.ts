import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { expect, it } from "vitest";
import { UPLOAD_SCRIPT } from "../../runtime/resource/upload-client.js";

// The upload progress script is JavaScript kept as text (served at /fw/upload.js; issue 40); `npm run typecheck`
// sees only a string, so this checks the script itself, strictly, against the browser's library.
it("the upload progress script (/fw/upload.js) type-checks strictly against the DOM", () => {
  const dir = mkdtempSync(join(tmpdir(), "fw-upload-"));
  try {
    const file = join(dir, "upload.js");
    writeFileSync(file, UPLOAD_SCRIPT);
    const program = ts.createProgram([file], {
      allowJs: true,
      checkJs: true,
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
      types: [],
    });
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
