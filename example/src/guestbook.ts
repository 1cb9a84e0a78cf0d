/** The example's in-memory guestbook: entries live as long as the process. */
export interface Entry {
  readonly id: number;
  readonly name: string;
  readonly message: string;
}

/**
 * The longest name and message an entry keeps (README: every text field has a maximum). The
 * form renders them as `maxlength` and Create refuses longer ones with a 422; `add` refuses
 * them too, so no other caller can store a megabyte.
 */
export const LIMITS = { name: 100, message: 2_000 } as const;

export class Guestbook {
  private readonly entries: Entry[] = [];

  list(): readonly Entry[] {
    return this.entries;
  }

  find(id: number): Entry | undefined {
    return this.entries.find((entry) => entry.id === id);
  }

  add(name: string, message: string): Entry {
    if (name.length > LIMITS.name || message.length > LIMITS.message) {
      throw new RangeError(`A guestbook entry takes a name of at most ${LIMITS.name} characters and a message of at most ${LIMITS.message}.`);
    }
    const entry = { id: this.entries.length + 1, name, message };
    this.entries.push(entry);
    return entry;
  }
}
