/**
 * The one rule for a user's role names (issue 41), shared by fw/auth's guards and users stores
 * and fw/db's users table (which cannot import fw/auth's values).
 */

/** A role's name: letters, digits, `-`, `_`, `:` and `.`, starting with a letter, at most 64 characters (`admin`, `billing:read`). */
export const ROLE_PATTERN = /^[a-z][a-z0-9_.:-]{0,63}$/i;

/** The roles, checked and in one canonical form (sorted, each once); throws naming a name that is no role. */
export function canonicalRoles(roles: readonly string[]): string[] {
  for (const role of roles) {
    if (typeof role !== "string" || !ROLE_PATTERN.test(role)) {
      throw new TypeError(`${JSON.stringify(String(role).slice(0, 80))} is no role name: letters, digits, -, _, : and ., starting with a letter, at most 64 characters (admin, billing:read).`);
    }
  }
  return [...new Set(roles)].sort();
}
