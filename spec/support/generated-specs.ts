// Readers of a built app's generated module (src/.fw/routes.ts): the specs the transformer wrote,
// parsed, for the tests that assert on what a model's types became.

/** The generated `const tableN: TableSpec = {…}` of the table `name`, parsed. */
export function tableSpecIn<T = Record<string, unknown>>(routes: string, name: string): T {
  for (const line of routes.split("\n")) {
    const match = /^const table\d+: TableSpec = (\{.*\});$/.exec(line);
    if (match !== null && JSON.parse(match[1] as string).name === name) return JSON.parse(match[1] as string) as T;
  }
  throw new Error(`no table ${name} in the generated module`);
}

/** The generated FieldSpec of one field of one model, parsed. */
export function fieldSpecIn(routes: string, model: string, field: string): Record<string, unknown> {
  const spec = new RegExp(`const model\\d+: ModelSpec<m\\d+\\.${model}> = \\{[\\s\\S]*?\\n\\};`).exec(routes)?.[0] ?? "";
  const line = spec.split("\n").find((l) => l.includes(`{"name":"${field}"`));
  if (line === undefined) throw new Error(`no field ${model}.${field}`);
  return JSON.parse(line.trim().replace(/,$/, ""));
}
