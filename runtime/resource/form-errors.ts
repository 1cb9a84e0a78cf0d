/** What is wrong with one field (spec 2.15: "one thing wrong with one field"). */
export interface FieldProblem {
  readonly field: string;
  /** `required`: absent and not optional; `unreadable`: could not be read as the field's type; `invalid`: read, but breaks a rule of the type (a typia tag). */
  readonly kind: "required" | "unreadable" | "invalid";
  readonly message: string;
}

/** Per-field problems, list-shaped so a field can hold several. */
export class FormErrors {
  constructor(readonly problems: readonly FieldProblem[] = []) {}

  static readonly none = new FormErrors();

  /** The problems of one field, in the order found. */
  for(field: string): readonly FieldProblem[] {
    return this.problems.filter((problem) => problem.field === field);
  }

  get isEmpty(): boolean {
    return this.problems.length === 0;
  }
}

interface Rule {
  readonly pattern: RegExp;
  readonly says: (n: string) => string;
  /** True when `value` breaks the rule; undefined when the rule cannot be checked here. */
  readonly broken?: (value: unknown, n: number) => boolean;
}

const length = (value: unknown): number => (typeof value === "string" ? [...value].length : Number.NaN);
const plural = (n: string): string => `${n} character${n === "1" ? "" : "s"} long`;

const RULES: readonly Rule[] = [
  { pattern: /MinLength<(\d+)>/, says: (n) => `must be at least ${plural(n)}`, broken: (v, n) => length(v) < n },
  { pattern: /MaxLength<(\d+)>/, says: (n) => `must be at most ${plural(n)}`, broken: (v, n) => length(v) > n },
  { pattern: /ExclusiveMinimum<(-?[\d.]+)>/, says: (n) => `must be more than ${n}`, broken: (v, n) => Number(v) <= n },
  { pattern: /ExclusiveMaximum<(-?[\d.]+)>/, says: (n) => `must be less than ${n}`, broken: (v, n) => Number(v) >= n },
  { pattern: /(?<!Exclusive)Minimum<(-?[\d.]+)>/, says: (n) => `must be at least ${n}`, broken: (v, n) => Number(v) < n },
  { pattern: /(?<!Exclusive)Maximum<(-?[\d.]+)>/, says: (n) => `must be at most ${n}`, broken: (v, n) => Number(v) > n },
  { pattern: /Type<"uint(32|64)">/, says: () => "must be a whole number from 0 up", broken: (v) => !Number.isInteger(v) || Number(v) < 0 },
  { pattern: /Type<"int(32|64)">/, says: () => "must be a whole number", broken: (v) => !Number.isInteger(v) },
  { pattern: /Format<"email">/, says: () => "must be an email address" },
  { pattern: /Format<"(uri|url)">/, says: () => "must be a web address" },
  { pattern: /Pattern</, says: () => "is not in the expected format" },
];

/**
 * Why a value breaks its type, as a sentence end. typia's `expected` names the whole type
 * ("number & Minimum<1> & Maximum<5>"), so each rule in it is checked against the value and
 * the broken ones are named; rules that cannot be checked here are named when nothing else is.
 */
export function ruleMessage(expected: string, value: unknown): string {
  const present = RULES.flatMap((rule) => {
    const match = rule.pattern.exec(expected);
    return match === null ? [] : [{ rule, n: match[1] ?? "" }];
  });
  const broken = present.filter(({ rule, n }) => rule.broken?.(value, Number(n)) === true);
  const unknown = present.filter(({ rule }) => rule.broken === undefined);
  const named = broken.length > 0 ? broken : unknown.length > 0 ? unknown : present;
  if (named.length === 0) return `is not valid (expected ${expected})`;
  return named.map(({ rule, n }) => rule.says(n)).join(" and ");
}
