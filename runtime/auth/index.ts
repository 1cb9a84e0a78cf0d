/**
 * fw/auth — the optional sign-in module (spec 2.12, 2.13, section 5). The HTTP core never
 * imports it: an app without it has no login page. It offers:
 *
 * - `Guarded` (with `Guarded.public`) and `Owned`: the declarations pages and models make;
 * - `formSignIn`: login, logout and sign-up pages over a signed session, and the guards made from it;
 * - `apiKey`: a guard for API routes (`Authorization: Bearer <key>`);
 * - users (`Users`, `InMemoryUsers`, `seedUser`) and salted scrypt password hashes;
 * - sessions that end: the guard asks the users store once per request, and `logoutEverywhere`,
 *   `changePassword`, `deleteUser` and sign-out end sessions (and close their sockets in every process).
 */
export { Guarded, type GuardedInit } from "./guarded.js";
export { Owned } from "./owned.js";
export { Policy, type Can, type PolicyInit } from "./policy.js";
export { formSignIn, FormSignIn, SIGN_IN_MAX_AGE_S, type FormSignInOptions, type RoleOf } from "./form-sign-in.js";
export { apiKey, ApiKeyGuard, type ApiKeyOptions } from "./api-key.js";
export { InMemoryUsers, MAX_REVOKED_PER_USER, normalEmail, seedUser, canonicalRoles, ROLE_PATTERN, type UserFields, type Users, type UsersQuery } from "./users.js";
export { hashPassword, verifyPassword, SCRYPT_COST } from "./password.js";
export { safeNext, MAX_NEXT_LENGTH } from "./next-path.js";
export {
  RateLimiter,
  limiterKey,
  PER_ACCOUNT_AND_ADDRESS,
  PER_ADDRESS,
  SIGNUPS_PER_ADDRESS,
  MAX_KEYS,
  MAX_KEY_PART,
  type AttemptLimiter,
  type Limit,
} from "./rate-limit.js";
export type { SignedIn } from "./session-user.js";
export type { AccountControl } from "./account-control.js";
export { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH, SIGNED_UP, CHECK_EMAIL, passwordProblem, newPasswordProblem } from "./signup.js";
export { isBareEmail } from "../http/email-address.js";
export { MIN_PASSWORD_SCORE, weakPasswordProblem } from "./password-strength.js";
export {
  Accounts,
  RESET_SENT,
  RESET_LINK_TTL_MS,
  CONFIRM_LINK_TTL_MS,
  EMAIL_LINK_TTL_MS,
  ACCOUNT_FORMS_PER_ADDRESS,
  MAILS_PER_ADDRESS,
  PASSWORD_CHECKS,
  type AccountMailer,
} from "./accounts.js";
export { InMemoryTokens, type AccountTokens, type TokenRecord, type TokenPurpose } from "./account-tokens.js";
export { isCommonPassword } from "./common-passwords.js";
export { ACCOUNT_LOCKED, WRONG_CREDENTIALS, type SignInLimiters } from "./login.js";
export { SIGNED_OUT_CODE } from "./live-sockets.js";
export { CONFIRMING, type AuthPaths } from "./sign-in-pages.js";
