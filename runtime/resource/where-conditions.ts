/**
 * A `where` field's value read as its conditions, one reading for every store: a value is
 * `eq`, a list is `in`, a plain object names its conditions (`FieldConditions` in query.ts).
 */

/** The conditions a where's object may hold, in the order a store checks them. */
export const CONDITION_NAMES = ["eq", "in", "not", "gt", "gte", "lt", "lte", "null", "contains", "like", "has"] as const;

export type ConditionName = (typeof CONDITION_NAMES)[number];

/** The conditions that read text (and only a text field takes). */
export const TEXT_CONDITIONS = ["contains", "like"] as const satisfies readonly ConditionName[];

/** One field's conditions, read: each given one with its value. */
export type Conditions = { readonly [K in ConditionName]?: unknown };

const KNOWN: ReadonlySet<string> = new Set(CONDITION_NAMES);

/**
 * A where field's value as its conditions: a plain object's own (each checked: a name `where`
 * knows, `in` a list, `null` true or false, `contains` and `like` a text), a list as `in`, any
 * other value as `eq`. Throws naming `field` and the condition for what no store can read
 * (untyped code: the types refuse it first).
 */
export function conditionsOf(wanted: unknown, field: string): Conditions {
  if (Array.isArray(wanted)) return { in: wanted };
  if (!isPlainObject(wanted)) return { eq: wanted };
  for (const [name, value] of Object.entries(wanted)) {
    if (!KNOWN.has(name)) {
      throw new Error(`A where's condition on ${field} names ${JSON.stringify(name)}, which where does not know (conditions: ${CONDITION_NAMES.join(", ")}).`);
    }
    if (value === undefined) continue;
    if (name === "in" && !Array.isArray(value)) throw new Error(`A where's \`in\` on ${field} is a list of values, not ${JSON.stringify(value)?.slice(0, 40)}.`);
    if (name === "null" && typeof value !== "boolean") throw new Error(`A where's \`null\` on ${field} is true (no value) or false (a value), not ${JSON.stringify(value)?.slice(0, 40)}.`);
    if ((name === "contains" || name === "like") && typeof value !== "string") throw new Error(`A where's \`${name}\` on ${field} is a text, not ${JSON.stringify(value)?.slice(0, 40)}.`);
  }
  return wanted as Conditions;
}

/** A plain object (`{ gte: 3 }`): not a value a field holds (a text, a number, a Date…). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * An SQL `LIKE` pattern as a pattern both a database and `likeMatches` read alike: a `\` that
 * ends it (which PostgreSQL refuses: "LIKE pattern must not end with escape character") is
 * taken as a literal `\`.
 */
export function likePattern(pattern: string): string {
  let trailing = 0;
  for (let i = pattern.length - 1; i >= 0 && pattern[i] === "\\"; i--) trailing++;
  return trailing % 2 === 1 ? `${pattern}\\` : pattern;
}

/** One piece of a `LIKE` pattern: any run of characters, one character, or this one. */
type LikeToken = { readonly kind: "any" } | { readonly kind: "one" } | { readonly kind: "char"; readonly char: string };

/**
 * Whether `text` matches an SQL `LIKE` pattern (`likePattern`'s reading, escape `\`), over
 * code points: `%` any run, `_` one character, `\x` the character x. The two-pointer wildcard
 * match (at most text × pattern steps), not a regular expression: a pattern of many `%` cannot
 * make it backtrack for long.
 */
export function likeMatches(text: string, pattern: string): boolean {
  const tokens = likeTokens(likePattern(pattern));
  const chars = [...text];
  let t = 0;
  let p = 0;
  let star = -1;
  let resume = 0;
  while (t < chars.length) {
    const token = tokens[p];
    if (token !== undefined && (token.kind === "one" || (token.kind === "char" && token.char === chars[t]))) {
      t++;
      p++;
    } else if (token?.kind === "any") {
      star = p++;
      resume = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (tokens[p]?.kind === "any") p++;
  return p === tokens.length;
}

function likeTokens(pattern: string): LikeToken[] {
  const tokens: LikeToken[] = [];
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    if (c === "\\") tokens.push({ kind: "char", char: chars[++i] ?? "\\" });
    else if (c === "%") {
      if (tokens[tokens.length - 1]?.kind !== "any") tokens.push({ kind: "any" });
    } else if (c === "_") tokens.push({ kind: "one" });
    else tokens.push({ kind: "char", char: c });
  }
  return tokens;
}
