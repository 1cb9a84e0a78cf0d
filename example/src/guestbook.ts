/** The example's in-memory guestbook: entries live as long as the process. */
export interface Entry {
  readonly id: number;
  readonly name: string;
  readonly message: string;
}

export class Guestbook {
  private readonly entries: Entry[] = [];

  list(): readonly Entry[] {
    return this.entries;
  }

  find(id: number): Entry | undefined {
    return this.entries.find((entry) => entry.id === id);
  }

  add(name: string, message: string): Entry {
    const entry = { id: this.entries.length + 1, name, message };
    this.entries.push(entry);
    return entry;
  }
}
