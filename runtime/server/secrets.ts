import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Secret } from "../http/secret.js";
import { whereToSet } from "./env-files.js";

export const SECRET_VARIABLE = "FW_SECRET";

/** Why the app cannot boot without a secret, and how to give it one. */
export class MissingSecret extends Error {
  override readonly name = "MissingSecret";
}

/** The production secret: the app's own, else `FW_SECRET`; missing or short → refuse to boot. */
export function productionSecret(configured: Secret | undefined, env: NodeJS.ProcessEnv): Secret {
  if (configured !== undefined) return configured;
  const value = env[SECRET_VARIABLE];
  if (value === undefined || value === "") {
    throw new MissingSecret(
      `${SECRET_VARIABLE} is not set. fw signs session cookies with it and will not start without one.\n` +
        `Set it to at least 32 random bytes, for example:\n` +
        `  export ${SECRET_VARIABLE}=$(node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))")\n` +
        `or pass \`secret\` to HttpApp. (\`dev\` makes one for you.) ${whereToSet(SECRET_VARIABLE, "<32 random bytes>")}`,
    );
  }
  try {
    return new Secret(value);
  } catch (error) {
    throw new MissingSecret(`${SECRET_VARIABLE} is too short: ${(error as Error).message}`);
  }
}

/**
 * The dev secret: the app's own or `FW_SECRET` when given; otherwise a random one kept in a
 * git-ignored file under `.fw/`, so sessions survive restarts.
 */
export function devSecret(
  configured: Secret | undefined,
  env: NodeJS.ProcessEnv,
  root: string,
  notice: (line: string) => void,
): Secret {
  if (configured !== undefined) return configured;
  if (env[SECRET_VARIABLE] !== undefined && env[SECRET_VARIABLE] !== "") return productionSecret(undefined, env);
  const file = join(root, ".fw", "dev-secret");
  try {
    return new Secret(readFileSync(file, "utf8").trim());
  } catch {
    const value = randomBytes(32).toString("base64url");
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${value}\n`, { mode: 0o600 });
    notice(`fw: ${SECRET_VARIABLE} is not set; dev uses a random secret kept in ${file} (git-ignored).`);
    return new Secret(value);
  }
}
