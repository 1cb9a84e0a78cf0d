import { describe, expect, it } from "vitest";
import { FromPath, InMemoryDatabase, type FieldSpec, type ModelSpec, type Validation } from "../../runtime/index.js";
import { defineFactories, type FactorySpec } from "../../runtime/testing/index.js";

// fw/testing's defineFactories on its own (the build writes the specs; spec/testing/factories.test.ts
// drives the generated ones against a running app): the rules a factory follows whatever the model,
// against fw's in-memory stores, which check references and uniques as a database does. The random
// generators here stand in for typia's: each draws from a small set, so repeats are certain.

interface Team {
  id: number;
  owner: number;
  name: string;
}
interface Board {
  id: number;
  owner: number;
  team: number;
  colour: "red" | "green" | "blue";
}
interface Card {
  id: number;
  board: number;
  text: string;
}
/** Optional references and lists of them: typia's random row fills an optional field half the time, with a made-up key. */
interface Pin {
  id: number;
  card: number;
  seeAlso?: number;
  boards: number[];
  cards?: number[];
}

const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)] as T;
const valid = <R>(check: (row: R) => string | undefined) => (input: unknown): Validation<R> => {
  const wrong = check(input as R);
  return wrong === undefined ? { success: true, data: input as R } : { success: false, errors: [{ path: "$input.text", expected: wrong, value: (input as { text?: unknown }).text }] };
};
const reference = (model: string, name: string): FieldSpec => ({ name, label: name, input: "reference", optional: false, describe: "a row", reference: { model, path: `/${model.toLowerCase()}s`, onDelete: "restrict" } });
const references = (model: string, name: string, optional: boolean): FieldSpec => ({ ...reference(model, name), input: "references", optional });
const text = (name: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({ name, label: name, input: "text", optional: false, describe: "text", ...extra });

function app() {
  const memory = new InMemoryDatabase();
  const spec = <A>(name: string, fields: readonly FieldSpec[], unique?: readonly (readonly string[])[]): ModelSpec<A> => ({
    name,
    fqn: `models.${name}`,
    path: `/${name.toLowerCase()}s`,
    key: "id",
    fields,
    ...(unique === undefined ? {} : { unique }),
    validate: (input) => ({ success: true, data: input as A }),
    decodeKey: FromPath.int,
  });
  const teamFields = [text("name", { unique: true, maxLength: 12 })];
  const boardFields = [reference("Team", "team"), { name: "colour", label: "Colour", input: "select", optional: false, describe: "a colour", options: ["red", "green", "blue"] } satisfies FieldSpec];
  const cardFields = [reference("Board", "board"), text("text", { maxLength: 20 })];
  const pinFields = [reference("Card", "card"), { ...reference("Card", "seeAlso"), optional: true }, references("Board", "boards", false), references("Card", "cards", true)];
  const stores = { Team: memory.store<Team>(spec("Team", teamFields)), Board: memory.store<Board>(spec("Board", boardFields, [["owner", "colour"]])), Card: memory.store<Card>(spec("Card", cardFields)), Pin: memory.store<Pin>(spec("Pin", pinFields)) };
  return defineFactories({
    Team: {
      name: "Team",
      key: "id",
      table: "teams",
      owner: "owner",
      fields: teamFields,
      random: () => ({ owner: 0, name: pick(["ants", "bees", "crows", "a name far too long"]) }),
      validate: valid<Omit<Team, "id">>(() => undefined),
      store: () => stores.Team,
    } satisfies FactorySpec<Team, Omit<Team, "id">>,
    Board: {
      name: "Board",
      key: "id",
      table: "boards",
      owner: "owner",
      unique: [["owner", "colour"]],
      fields: boardFields,
      random: () => ({ owner: 0, team: 999, colour: pick(["red", "green", "blue"] as const) }),
      validate: valid<Omit<Board, "id">>(() => undefined),
      store: () => stores.Board,
    } satisfies FactorySpec<Board, Omit<Board, "id">>,
    Card: {
      name: "Card",
      key: "id",
      table: "cards",
      fields: cardFields,
      random: () => ({ board: 999, text: pick(["one", "two"]) }),
      validate: valid<Omit<Card, "id">>((row) => (row.text === "" ? "string & MinLength<1>" : undefined)),
      store: () => stores.Card,
    } satisfies FactorySpec<Card, Omit<Card, "id">>,
    Pin: {
      name: "Pin",
      key: "id",
      table: "pins",
      fields: pinFields,
      // As typia's random row at its worst: every optional field present, every key made up.
      random: () => ({ card: 999, seeAlso: 998, boards: [997, 996], cards: [995] }),
      validate: valid<Omit<Pin, "id">>(() => undefined),
      store: () => stores.Pin,
    } satisfies FactorySpec<Pin, Omit<Pin, "id">>,
  });
}

describe("defineFactories", () => {
  it("draws a text field again while its value is longer than the field's most characters, and refuses an override that is", () => {
    const factories = app();
    for (let i = 0; i < 3; i++) expect(factories.Team.build({ owner: 1 }).name).not.toBe("a name far too long");
    expect(() => factories.Team.build({ owner: 1, name: "x".repeat(13) })).toThrow("factories.Team built a row that is not a valid Team (name: at most 12 characters, got 13)");
    expect(() => factories.Card.build({ text: "" })).toThrow('(text: expected string & MinLength<1>, got "")');
  });

  it("never repeats a unique field's value, nor a composite unique's values together, and says so when the type runs out", async () => {
    const factories = app();
    const names = [1, 2, 3].map(() => factories.Team.build({ owner: 1 }).name);
    expect(new Set(names).size).toBe(3);
    expect(() => factories.Team.build({ owner: 1 })).toThrow("factories.Team drew 1000 rows and each repeats a value of a unique field (name)");
    // (owner, colour): three colours per owner; the owner given as an override is part of the pair.
    const team = await factories.Team.insert({ owner: 7, name: "given" });
    const colours = await Promise.all([1, 2, 3].map(async () => (await factories.Board.insert({ owner: 7, team: team.id })).colour));
    expect(new Set(colours).size).toBe(3);
    await expect(factories.Board.insert({ owner: 7, team: team.id })).rejects.toThrow("each repeats a value of a unique field (owner+colour)");
  });

  it("makes a required reference on demand, the same owner's when both models are owned, and refuses to make an owned row for a model that has no owner", async () => {
    const factories = app();
    const board = await factories.Board.insert({ owner: 5 });
    // The board's team was made for owner 5 by the team's factory (the store checked it exists).
    expect(board.team).toEqual(expect.any(Number));
    expect(board.owner).toBe(5);
    const card = await factories.Card.insert({ board: board.id });
    expect(card.board).toBe(board.id);
    await expect(factories.Card.insert()).rejects.toThrow("factories.Card.insert would make the Board its field board points at, whose rows are someone's: give board (a row made with factories.Board.insert({ owner: … }))");
    await expect(factories.Board.insert()).rejects.toThrow("factories.Board.insert needs the row's owner");
  });

  it("leaves an optional reference out, makes a required list of references empty, and keeps the ones given", async () => {
    const factories = app();
    const board = await factories.Board.insert({ owner: 5 });
    const card = await factories.Card.insert({ board: board.id });
    // Not given: the random keys (which no row has) are not inserted, and no board is made up for the list.
    const pin = await factories.Pin.insert({ card: card.id });
    expect([pin.seeAlso, pin.boards, pin.cards ?? []]).toEqual([undefined, [], []]);
    // Given: as given.
    const given = await factories.Pin.insert({ card: card.id, seeAlso: card.id, boards: [board.id], cards: [card.id] });
    expect([given.card, given.seeAlso, given.boards, given.cards]).toEqual([card.id, card.id, [board.id], [card.id]]);
  });
});
