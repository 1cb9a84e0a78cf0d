import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { expect, it } from "vitest";
import { PICKER_SCRIPT } from "../../runtime/resource/picker-client.js";

// The picker's script is JavaScript kept as text (served at /fw/picker.js); `npm run typecheck`
// sees only a string, so this checks the script itself, strictly, against the browser's library.
it("the reference picker's script (/fw/picker.js) type-checks strictly against the DOM", () => {
  const dir = mkdtempSync(join(tmpdir(), "fw-picker-"));
  try {
    const file = join(dir, "picker.js");
    writeFileSync(file, PICKER_SCRIPT);
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
