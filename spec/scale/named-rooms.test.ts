import { afterEach, describe, expect, it } from "vitest";
import { Room, type FanOut, type WsConnection } from "../../runtime/index.js";
import { installFanOut } from "../../runtime/ws/fan-out.js";

/** A member that records what it was sent. */
function member(name: string, log: string[]): WsConnection {
  return {
    request: undefined as never, // never read by a room
    send: async () => undefined,
    enqueue: (text) => void log.push(`${name} ${text}`),
    close: () => undefined,
  };
}

/** A transport that records what it was asked to publish and lets the test deliver "from elsewhere". */
function recordingFanOut() {
  const published: string[] = [];
  let deliver: ((room: string, text: string) => void) | undefined;
  const fanOut: FanOut = {
    publish: (room, text) => void published.push(`${room}:${text}`),
    start: async (to) => void (deliver = to),
    close: async () => void (deliver = undefined),
  };
  return { fanOut, published, fromElsewhere: (room: string, text: string) => deliver?.(room, text) };
}

afterEach(() => installFanOut(undefined));

// Issue 21: a named room is one room across the app's processes; the core only hands its
// broadcasts to the installed FanOut and delivers what the FanOut brings in.
describe("issue 21: named rooms and the FanOut interface", () => {
  it("a named room's broadcast goes to its members here and to the fan-out; one from elsewhere reaches every member here", async () => {
    const { fanOut, published, fromElsewhere } = recordingFanOut();
    await installFanOut(fanOut);
    const log: string[] = [];
    const room = new Room("chat");
    const [a, b] = [member("a", log), member("b", log)];
    room.join(a);
    room.join(b);
    room.broadcast("hello", { except: a });
    fromElsewhere("chat", "from another process");
    fromElsewhere("lobby", "not ours");
    expect(log).toEqual(["b hello", "a from another process", "b from another process"]);
    expect(published).toEqual(["chat:hello"]);
  });

  it("rooms of one name in one process are one room; an unnamed room stays in its process", async () => {
    const { fanOut, published } = recordingFanOut();
    await installFanOut(fanOut);
    const log: string[] = [];
    const first = new Room("chat");
    const second = new Room("chat");
    const local = new Room();
    first.join(member("a", log));
    second.join(member("b", log));
    local.join(member("c", log));
    first.broadcast("one");
    local.broadcast("two");
    expect(log).toEqual(["a one", "b one", "c two"]);
    expect(published).toEqual(["chat:one"]);
  });

  it("a room whose members all left hears nothing from elsewhere; one that is joined again does", async () => {
    const { fanOut, fromElsewhere } = recordingFanOut();
    await installFanOut(fanOut);
    const log: string[] = [];
    const room = new Room("chat");
    const a = member("a", log);
    room.join(a);
    room.leave(a);
    fromElsewhere("chat", "nobody here");
    room.join(a);
    fromElsewhere("chat", "back");
    expect(log).toEqual(["a back"]);
  });

  it("without a fan-out a named room reaches this process's members; a bad name is refused, naming it", () => {
    const log: string[] = [];
    const room = new Room("chat");
    room.join(member("a", log));
    room.broadcast("here");
    expect(log).toEqual(["a here"]);
    expect(() => new Room("")).toThrow(/a room's name must be 1 to 200 characters, not 0/);
    expect(() => new Room("x".repeat(201))).toThrow(/not 201/);
  });
});
