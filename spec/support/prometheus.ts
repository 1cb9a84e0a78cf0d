import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * Prometheus' text format, read by the Prometheus project's own parser: the official Python
 * client's `prometheus_client.parser` (Debian's python3-prometheus-client, which .ci/run
 * installs). The npm parser parse-prometheus-text-format was tried first: it folds every label
 * set of a histogram into one (its `flattenMetrics`), so per-route counts cannot be read with it.
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  readonly type: string;
  readonly help: string;
  readonly samples: readonly Sample[];
}

const PYTHON = "/usr/bin/python3";
const SCRIPT = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families
families = []
for family in text_string_to_metric_families(sys.stdin.read()):
    families.append({"name": family.name, "type": family.type, "help": family.documentation,
                     "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples]})
json.dump(families, sys.stdout)
`;

/** Why the parser cannot run here, or undefined when it can. */
export function prometheusParserMissing(): string | undefined {
  if (!existsSync(PYTHON)) return `${PYTHON} is missing (apt-get install python3-prometheus-client)`;
  return undefined;
}

/** The families `text` holds; a line the parser refuses rejects, with its message. */
export function parsePrometheus(text: string): Promise<Family[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ["-c", SCRIPT], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`the Prometheus parser refused the text (exit ${code}): ${err.trim().split("\n").slice(-1)[0]}`));
      else resolve(JSON.parse(out) as Family[]);
    });
    child.stdin.end(text);
  });
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when none. */
export function sampleValue(families: readonly Family[], name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  for (const family of families) {
    for (const sample of family.samples) {
      if (sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) return sample.value;
    }
  }
  return undefined;
}
