import type { DevHook } from "../server/dev-hook.js";

/**
 * Loads fw's dev module and makes its hook: the one place fw reaches into runtime/dev/, on `dev`
 * alone, so a production server never loads it. The server below only knows the hook's shape.
 */
export async function loadDevHook(): Promise<DevHook> {
  const { createDevHook } = await import("../dev/in-app.js");
  return createDevHook();
}
