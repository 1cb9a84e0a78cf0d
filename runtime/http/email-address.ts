/**
 * One email address alone, as fw/auth stores it and fw/mail delivers to it: an addr-spec with
 * nothing a mail program reads as more (no display name, comment, group, list, quotes, brackets
 * or spaces), so the address a form took is the mailbox mail goes to, and no reader finds
 * another address in it (`a(x)@d.example`, `x<a@d.example>`, `g:a@d.example;` and
 * `a@d.example,x` all read as `a@d.example` to nodemailer). Shared by fw/auth and fw/mail,
 * which import nothing of each other.
 *
 * Modelled on WHATWG's "valid email address" (what a browser's `type=email` field takes), with
 * three differences: letters, marks and digits of any script are allowed too (RFC 6531
 * internationalised addresses: `josé@bücher.example`); a dot only between two characters of the
 * local part (RFC 5321's dot-atom: a mailer quotes anything else, which names another mailbox);
 * and the domain has two labels or more (`ada@localhost` is no address on the internet).
 */
export function isBareEmail(text: string): boolean {
  if (text.length > MAX_EMAIL_LENGTH || !BARE.test(text)) return false;
  return text.lastIndexOf("@") <= MAX_LOCAL_LENGTH;
}

/** The longest address (RFC 5321's path limit, less its brackets). */
export const MAX_EMAIL_LENGTH = 254;
/** The longest part before the "@" (RFC 5321). */
const MAX_LOCAL_LENGTH = 64;

/** WHATWG's atext of the local part, plus letters, marks and digits of any script. */
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~\\-\\p{L}\\p{M}\\p{N}]+";
/** A domain label: letters, marks and digits, with hyphens inside, at most 63 long. */
const LABEL = "[\\p{L}\\p{M}\\p{N}](?:[\\p{L}\\p{M}\\p{N}-]{0,61}[\\p{L}\\p{M}\\p{N}])?";
const BARE = new RegExp(`^${ATOM}(?:\\.${ATOM})*@${LABEL}(?:\\.${LABEL})+$`, "u");

/**
 * An email as compared and stored: NFKC-normalised, case-folded (upper then lower case, final
 * sigma as sigma, then NFKC again, so "ß" and "SS", "ﬁ" and "fi", full-width and ASCII letters
 * compare equal), trimmed. Two spellings a person would read as one address name one account.
 */
export function normalEmail(email: string): string {
  // toLowerCase writes a word-final sigma as "ς"; case folding makes every sigma "σ".
  return email.normalize("NFKC").toUpperCase().toLowerCase().replaceAll("ς", "σ").normalize("NFKC").trim();
}
