import type { Store } from "../resource/store.js";

/** Refreshes every live page listening to `topic`, here and (through the app's fan-out) in its other processes. */
export function publish(_topic: string, _message?: string): void {
  throw new Error("fw/live: publish is not built yet");
}

/** `store`, publishing `topic` after every insert, update and delete it makes (the build wraps each model's store so in an app with live pages: topic = the model's path name, `posts`). */
export function publishing<A>(_store: Store<A>, _topic: string): Store<A> {
  throw new Error("fw/live: publishing is not built yet");
}
