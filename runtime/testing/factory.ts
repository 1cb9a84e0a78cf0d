import type { FieldSpec, Validation } from "../resource/model.js";
import type { Draft, Store } from "../resource/store.js";

/**
 * What the build writes for one model's factory (src/.fw/factories.ts): the row's type without
 * its key and file fields (`R`), typia's random generator and validator of that type, the
 * model's fields as its spec has them, and its store.
 */
export interface FactorySpec<M, R> {
  readonly name: string;
  /** The key field (`id`): what a reference to a row holds. */
  readonly key: string;
  /** The model's table (the companion's `table`); absent for a model the app keeps in memory. */
  readonly table?: string;
  /** An owned model's owner field (`owner: Id<User>`): a row is inserted for the owner given, never a random one. */
  readonly owner?: string;
  /** A policy's team field: given, as the owner is. */
  readonly team?: string;
  readonly fields: readonly FieldSpec[];
  /** The companion's composite uniques. */
  readonly unique?: readonly (readonly string[])[];
  /** `typia.createRandom<R>()`: every tag of the type respected. */
  readonly random: () => R;
  /** `typia.createValidate<R>()`: a built row (overrides applied) passes it or the factory throws. */
  readonly validate: (input: unknown) => Validation<R>;
  /** The model's store, as the generated routes module makes it (the process's database: fw/db's `processDatabase()`). */
  readonly store: () => Store<M>;
}

/** A model's factory: `factories.Post.build({ title })`, `await factories.Post.insert({ title })`. */
export interface Factory<M, R> {
  /**
   * A valid row, not stored: typia's random value of the model's type with `overrides` over it,
   * fresh values for its unique fields, checked by the model's validator (an override that
   * makes it invalid throws, naming the field). A reference not given keeps a random key: only
   * `insert` makes the rows references point at.
   */
  build(overrides?: Partial<R>): R;
  /**
   * Builds a row and inserts it through the model's store, answering it as stored (its key
   * assigned). Each required reference not given is made first, by its model's own factory; an
   * optional one not given is left out, and a list of references not given is empty; an
   * owned model's owner (and a team field) must be given, as no user is made up.
   */
  insert(overrides?: Partial<R>): Promise<M>;
  /** `count` rows, each inserted as `insert` does (one after another, so references made on demand are each their own). */
  insertMany(count: number, overrides?: Partial<R>): Promise<M[]>;
}

/** The factories of the specs `S`, by model name. */
export type Factories<S> = { readonly [K in keyof S]: S[K] extends FactorySpec<infer M, infer R> ? Factory<M, R> : never };

/** How many random values a unique field may draw before the factory gives up (a union of 3 strings has 3). */
const DRAWS = 1000;

/**
 * The factories of an app's models, from the specs the build wrote: each finds the others by
 * model name, to make the rows its references point at.
 */
export function defineFactories<S extends Record<string, FactorySpec<unknown, unknown>>>(specs: S): Factories<S> {
  const made = new Map<string, ModelFactory<unknown, unknown>>();
  const sibling = (name: string): ModelFactory<unknown, unknown> | undefined => made.get(name);
  for (const [name, spec] of Object.entries(specs)) made.set(name, new ModelFactory(spec, sibling));
  // Each entry was made from the spec under the same name: the mapped type says so per model.
  return Object.fromEntries(made) as unknown as Factories<S>;
}

class ModelFactory<M, R> implements Factory<M, R> {
  /** The values each unique field (or composite unique, its values joined) was built with in this process. */
  readonly #used = new Map<string, Set<string>>();

  constructor(
    readonly spec: FactorySpec<M, R>,
    private readonly sibling: (name: string) => ModelFactory<unknown, unknown> | undefined,
  ) {}

  build(overrides: Partial<R> = {}): R {
    const row = this.#fresh(overrides);
    const checked = this.spec.validate(row);
    const long = tooLong(this.spec.fields, row as Record<string, unknown>);
    if (!checked.success || long.length > 0) {
      const errors = [...(checked.success ? [] : checked.errors.map((error) => `${error.path.replace(/^\$input\./, "")}: expected ${error.expected}, got ${JSON.stringify(error.value)}`)), ...long];
      const why = errors.join("; ");
      throw new Error(`fw/testing: factories.${this.spec.name} built a row that is not a valid ${this.spec.name} (${why}): change the overrides given.`);
    }
    return checked.data;
  }

  async insert(overrides: Partial<R> = {}): Promise<M> {
    const given = overrides as Record<string, unknown>;
    if (this.spec.table === undefined) {
      // Its store is this process's memory, not the app's: a row put there would be seen by no page.
      throw new Error(`fw/testing: factories.${this.spec.name}.insert: ${this.spec.name} has no table, so its rows live in the memory of the app's process, which a test cannot reach. Give it a table (derives<${this.spec.name}>(…, { table: "…" })), or make the row through its form; build() still makes one.`);
    }
    const file = this.spec.fields.find((field) => field.input === "file" && !field.optional);
    if (file !== undefined) {
      throw new Error(`fw/testing: factories.${this.spec.name}.insert: the field ${file.name} is a required file, and a factory makes no stored file: make the row through its form, with testFile(…).`);
    }
    for (const field of [this.spec.owner, this.spec.team]) {
      if (field !== undefined && given[field] === undefined) {
        throw new Error(`fw/testing: factories.${this.spec.name}.insert needs the row's ${field} (an owned model's rows are someone's): give it, e.g. insert({ ${field}: user.id }).`);
      }
    }
    const references: Record<string, unknown> = {};
    for (const field of this.spec.fields) {
      if (field.reference === undefined || given[field.name] !== undefined) continue;
      references[field.name] = await this.#unnamed(field, given);
    }
    const row = this.build({ ...overrides, ...references } as Partial<R>);
    return this.spec.store().insert(row as Draft<M>);
  }

  async insertMany(count: number, overrides: Partial<R> = {}): Promise<M[]> {
    const rows: M[] = [];
    for (let i = 0; i < count; i++) rows.push(await this.insert(overrides));
    return rows;
  }

  /**
   * What a reference field not given holds: typia's random row names keys no row has (an
   * optional field, half the time), so an optional reference is left out, a required list is
   * empty (it may be), and a required reference is a row made by its model's factory.
   */
  async #unnamed(field: FieldSpec, given: Record<string, unknown>): Promise<unknown> {
    if (field.optional) return undefined;
    if (field.input === "references") return [];
    return this.#referenced(field, given);
  }

  /** A row of the referenced model, made by its factory: when both are owned, the same owner's (and team's). */
  async #referenced(field: FieldSpec, given: Record<string, unknown>): Promise<unknown> {
    const name = field.reference?.model ?? "";
    const target = this.sibling(name);
    if (target === undefined) throw new Error(`fw/testing: factories.${this.spec.name}.insert: the field ${field.name} points at ${name}, which has no factory (it has no store): give ${field.name}.`);
    const inherited: Record<string, unknown> = {};
    if (target.spec.owner !== undefined && this.spec.owner !== undefined) inherited[target.spec.owner] = given[this.spec.owner];
    if (target.spec.team !== undefined && this.spec.team !== undefined) inherited[target.spec.team] = given[this.spec.team];
    if ((target.spec.owner !== undefined && inherited[target.spec.owner] === undefined) || (target.spec.team !== undefined && inherited[target.spec.team] === undefined)) {
      throw new Error(`fw/testing: factories.${this.spec.name}.insert would make the ${name} its field ${field.name} points at, whose rows are someone's: give ${field.name} (a row made with factories.${name}.insert({ ${target.spec.owner ?? target.spec.team}: … })).`);
    }
    const row = (await target.insert(inherited)) as Record<string, unknown>;
    return row[target.spec.key];
  }

  /** typia's random row with the overrides over it, its unique fields drawn again until unused. */
  #fresh(overrides: Partial<R>): R {
    const uniques = this.#uniques().filter((fields) => fields.some((field) => !(field in overrides)));
    let last: Record<string, unknown> = {};
    let repeated: string[] | undefined;
    for (let draw = 0; draw < DRAWS; draw++) {
      const row = { ...(this.spec.random() as object), ...overrides } as Record<string, unknown>;
      last = row;
      // A text field's random value may be longer than fw's column for it (200 for a plain `string`): drawn again.
      if (tooLong(this.spec.fields.filter((field) => !(field.name in overrides)), row).length > 0) continue;
      const seen = uniques.map((fields) => ({ key: fields.join("+"), value: JSON.stringify(fields.map((field) => row[field] ?? null)) }));
      if (seen.every(({ key, value }) => !this.#used.get(key)?.has(value))) {
        for (const { key, value } of seen) this.#used.set(key, (this.#used.get(key) ?? new Set()).add(value));
        return row as R;
      }
      repeated = seen.map(({ key }) => key);
    }
    // Every draw that fit repeated a unique value: the type has run out (a too-long draw is no way out of it).
    if (repeated !== undefined) throw new Error(`fw/testing: factories.${this.spec.name} drew ${DRAWS} rows and each repeats a value of a unique field (${repeated.join(", ")}): the type has too few values; give them as overrides.`);
    // Every draw was too long: the row's check names the field.
    return last as R;
  }

  /** The model's unique fields, one by one and as composite uniques. */
  #uniques(): (readonly string[])[] {
    return [...this.spec.fields.filter((field) => field.unique === true).map((field) => [field.name]), ...(this.spec.unique ?? [])];
  }
}

/** Text fields longer than their most characters (`FieldSpec.maxLength`, code points as the database counts them), said as the build's errors are. */
function tooLong(fields: readonly FieldSpec[], row: Record<string, unknown>): string[] {
  return fields.flatMap((field) => {
    const value = row[field.name];
    return typeof value === "string" && field.maxLength !== undefined && [...value].length > field.maxLength ? [`${field.name}: at most ${field.maxLength} characters, got ${[...value].length}`] : [];
  });
}
