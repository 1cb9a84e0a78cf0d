import { mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { runNode, type Ran } from "./process.js";

/** fw's command line as a user runs it (npm test builds dist/ first). */
export const FW = resolve("bin/fw.js");

/** A production bundle of the built example, made by `fw bundle`. */
export interface ExampleBundle {
  /** Its folder, under example/dist/ as an app's dist/bundle is: `ws` resolves from there. */
  readonly out: string;
  /** `<out>/main.js`, the entry to run. */
  readonly main: string;
  /** What `fw bundle` printed, and its exit code. */
  readonly ran: Ran;
  remove(): void;
}

/** Runs `fw bundle --project example --out <a fresh folder>` on the built example. */
export async function bundleExample(): Promise<ExampleBundle> {
  const out = mkdtempSync(join(resolve("example/dist"), "bundle-test-"));
  const ran = await runNode(FW, ["bundle", "--project", "example", "--out", out]);
  if (ran.code !== 0) throw new Error(`fw bundle failed (${ran.code}):\n${ran.out}\n${ran.err}`);
  return { out, main: join(out, "main.js"), ran, remove: () => rmSync(out, { recursive: true, force: true }) };
}
