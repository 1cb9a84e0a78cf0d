/** The stamp's name, in the output folder. */
export declare const STAMP: string;
/**
 * One hash of the names and contents of every file under `inputs` (paths relative to `root`;
 * node_modules, dist, .fw and .git folders left out), seeded with `before` (the hash of a target
 * this one is built from).
 */
export declare function inputHash(root: string, inputs: readonly string[], before?: string): string;
/** Why the build in `out` must be made again for inputs hashed `hash`, or undefined when it is fresh. */
export declare function staleness(root: string, out: string, hash: string): string | undefined;
/** Removes `out`'s stamp: run before a build starts, so a failed one is never taken for fresh. */
export declare function forgetBuild(root: string, out: string): void;
/** Records a successful build of inputs hashed `hash` into `out`, and the contents of the files it holds now. */
export declare function stampBuild(root: string, out: string, hash: string): void;
