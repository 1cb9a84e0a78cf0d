// Types of bench/targets.mjs for the specs that render its table (spec/tooling/bench-targets.test.ts).
/** Every goal's number (ratios, ms, MB, statements), by name. */
export declare const GOALS: Readonly<Record<string, number>>;
/** PGlite's store ops/s before its memory cut (issue 30's reference). */
export declare const PGLITE_STORE_BEFORE: Readonly<Record<string, number>>;
/** What a target without a figure says. */
export declare const NOT_MEASURED: string;
/**
 * Every target's row, [target, measured, verdict], from a run's results (bench/run.mjs: one key per
 * part that ran, as bench/.work/results*.json hold them); a part missing leaves its rows "not measured".
 */
export declare function targetRows(results: object): [string, string, string][];
/** The same rows as a Markdown table. */
export declare function targetsTable(results: object): string;
