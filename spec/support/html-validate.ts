import { HtmlValidate, type ConfigData } from "html-validate";

/**
 * html-validate (a maintained HTML validator, run in-process: no browser, no network), as the
 * markup tests use it: the recommended rules, which cover landmarks (one `main`, landmarks told
 * apart), inputs with a `type`, labels tied to their controls, ARIA used where it is allowed and
 * valid nesting. `rules` turns some off or on for one check.
 */
const validators = new Map<string, HtmlValidate>();

function validator(rules: ConfigData["rules"] = {}): HtmlValidate {
  const key = JSON.stringify(rules);
  let found = validators.get(key);
  if (found === undefined) {
    found = new HtmlValidate({ extends: ["html-validate:recommended"], rules });
    validators.set(key, found);
  }
  return found;
}

/** Every error html-validate reports in a whole document, as `rule: message (line:column)`: `[]` when it is valid. */
export async function htmlErrors(html: string, rules: ConfigData["rules"] = {}): Promise<string[]> {
  const report = await validator(rules).validateString(html);
  return report.results.flatMap((result) => result.messages.filter((m) => m.severity === 2).map((m) => `${m.ruleId}: ${m.message} (${m.line}:${m.column}: ${JSON.stringify(m.selector)})`));
}
