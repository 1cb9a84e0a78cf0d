import { PasswordEstimator } from "./password-estimator.js";

/**
 * The least zxcvbn score (0–4) a new password needs: 3, "safely unguessable: moderate protection
 * from an offline slow-hash scenario" (about 10^8 guesses and more), as zxcvbn's authors advise
 * for a site that hashes with a slow function (fw: scrypt).
 */
export const MIN_PASSWORD_SCORE = 3;

/** The longest prefix the estimator reads (its cost grows with the length; longer is strong anyway). */
const ESTIMATED_LENGTH = 256;

/**
 * zxcvbn-ts (a maintained port of Dropbox's estimator) with its English and common dictionaries
 * and keyboard graphs, on a thread of its own started on the first password checked: they are
 * megabytes, built in about half a second, and an app that never takes a new password never
 * loads them; once loaded, no check holds the event loop (see `PasswordEstimator`).
 */
const estimator = new PasswordEstimator();

/**
 * What makes `password` too easy to guess for the account `email`, in words for the form: the
 * estimator's warning (a common password, a keyboard walk, a repeat, a date, the email), its
 * suggestions, and what would pass. Undefined when it scores MIN_PASSWORD_SCORE or more.
 */
export async function weakPasswordProblem(password: string, email: string): Promise<string | undefined> {
  const local = email.slice(0, Math.max(0, email.lastIndexOf("@")));
  const result = await estimator.estimate(password.slice(0, ESTIMATED_LENGTH), [email, local].filter((input) => input !== ""));
  if (result.score >= MIN_PASSWORD_SCORE) return undefined;
  const why = result.warning ?? "It follows a pattern that is quick to guess.";
  const tips = result.suggestions.filter((tip) => tip !== "");
  return `This password is too easy to guess. ${why}${tips.length === 0 ? "" : ` ${tips.join(" ")}`} Four or more words that do not belong together pass, or a longer mix of words, numbers and symbols.`;
}
