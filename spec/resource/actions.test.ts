import { describe, expect, it } from "vitest";
import { Actions, Create, Destroy, Edit, Index, New, Show, Update } from "../../runtime/index.js";

describe("2.11 Actions", () => {
  it("defaults to all seven roles", () => {
    for (const role of [Index, New, Show, Edit, Create, Update, Destroy]) expect(Actions.all.has(role)).toBe(true);
  });

  it("subtracts by role", () => {
    const actions = Actions.except(Destroy, Edit);
    expect(actions.has(Destroy)).toBe(false);
    expect(actions.has(Edit)).toBe(false);
    expect(actions.has(Update)).toBe(true);
    expect(actions.except(Update).has(Update)).toBe(false);
    expect(Actions.all.has(Destroy)).toBe(true); // subtraction makes a new set
  });

  it("is a membership set: order never enters", () => {
    expect(Actions.only(Show, Index).toString()).toBe(Actions.only(Index, Show).toString());
    expect(Actions.only(Show, Index).has(Index)).toBe(true);
    expect(Actions.only(Show, Index).has(New)).toBe(false);
  });
});
