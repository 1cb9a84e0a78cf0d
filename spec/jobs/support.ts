import type { Validation } from "../../runtime/resource/model.js";
import type { JobContext, JobOptions, JobSpec } from "../../runtime/jobs/index.js";

/**
 * A job spec written by hand, as the build writes one (the build's typia validator is tested
 * through the fixture app in spec/jobs/build.test.ts): `check` answers the paths that are wrong.
 */
export function spec<P>(name: string, run: (payload: P, job: JobContext) => Promise<void> | void, check: (input: unknown) => string[], options?: JobOptions): JobSpec<P> {
  const validate = (input: unknown): Validation<P> => {
    const wrong = check(input);
    return wrong.length === 0 ? { success: true, data: input as P } : { success: false, errors: wrong.map((path) => ({ path, expected: "number", value: (input as Record<string, unknown> | null)?.[path.replace("$input.", "")] })) };
  };
  return { name, source: `src/jobs/${name}.ts`, run, validate, ...(options === undefined ? {} : { options }) };
}

/** `{ n: number }`'s check. */
export function numbered(input: unknown): string[] {
  return typeof input === "object" && input !== null && typeof (input as { n?: unknown }).n === "number" ? [] : ["$input.n"];
}

/** Resolves once `condition` holds, asking every 10 ms (the test's timeout bounds a hang). */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((done) => setTimeout(done, 10));
}

/** A promise and its resolver. */
export function gate(): { readonly opened: Promise<void>; open(): void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((done) => (open = done));
  return { opened, open };
}
