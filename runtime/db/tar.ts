import fs, { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";

/**
 * A minimal ustar archive of a directory's regular files and folders: what the embedded
 * engine's template (a fresh data directory, pglite-template.ts) is kept as. Names are
 * relative, `/`-separated and at most 100 bytes (a PostgreSQL data directory's longest is about
 * 35); links and special files are refused, as a data directory has none.
 */

const BLOCK = 512;

/** Packs `directory` (its files and folders, sorted, modes 0600/0700, times zero: the same tree gives the same bytes). */
export function packDirectory(directory: string): Buffer {
  const blocks: Buffer[] = [];
  const walk = (relative: string): void => {
    for (const name of readdirSync(join(directory, relative)).sort()) {
      const path = relative === "" ? name : `${relative}/${name}`;
      const stat = statSync(join(directory, path));
      if (stat.isDirectory()) {
        blocks.push(header(`${path}/`, 0, "5"));
        walk(path);
      } else if (stat.isFile()) {
        const data = readFileSync(join(directory, path));
        blocks.push(header(path, data.length, "0"), data, Buffer.alloc(padding(data.length)));
      } else {
        throw new Error(`fw/db: cannot pack ${join(directory, path)}: neither a file nor a folder`);
      }
    }
  };
  walk("");
  blocks.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(blocks);
}

/** One entry of an archive: a folder, or a file and its bytes. */
export interface TarEntry {
  readonly path: string;
  readonly kind: "file" | "folder";
  readonly data: Buffer;
}

/** The entries of an archive made by `packDirectory` (or any ustar archive of files and folders). */
export function* tarEntries(archive: Buffer): Generator<TarEntry> {
  for (let offset = 0; offset + BLOCK <= archive.length; ) {
    const head = archive.subarray(offset, offset + BLOCK);
    if (head.every((byte) => byte === 0)) return;
    const name = text(head, 0, 100);
    const prefix = text(head, 257, 6) === "ustar" ? text(head, 345, 155) : "";
    const size = Number.parseInt(text(head, 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(head[156] ?? 0);
    if (!Number.isSafeInteger(size) || size < 0 || offset + BLOCK + size > archive.length) throw new Error("fw/db: a damaged archive (an entry runs past its end)");
    const path = safePath(prefix === "" ? name : `${prefix}/${name}`);
    const data = archive.subarray(offset + BLOCK, offset + BLOCK + size);
    offset += BLOCK + size + padding(size);
    if (type === "5") yield { path, kind: "folder", data };
    else if (type === "0" || type === "\0") yield { path, kind: "file", data };
    else throw new Error(`fw/db: the archive holds ${path}, which is neither a file nor a folder (type ${JSON.stringify(type)})`);
  }
}

/** How `unpackInto` writes. */
export interface UnpackOptions {
  /** A file written after every other: one whose presence says the rest is complete. */
  readonly last?: string;
  /**
   * Every file and folder reaches the disk (fsync) before `last` is written, and `last` after:
   * a crash of the machine cannot leave `last` beside files that were lost.
   */
  readonly sync?: boolean;
}

/** Writes the archive's folders and files under `directory` (files replace those already there). */
export function unpackInto(archive: Buffer, directory: string, options: UnpackOptions = {}): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const folders = [directory];
  const files: string[] = [];
  let held: TarEntry | undefined;
  for (const entry of tarEntries(archive)) {
    const target = join(directory, ...entry.path.split("/"));
    if (entry.kind === "folder") {
      mkdirSync(target, { recursive: true, mode: 0o700 });
      folders.push(target);
    } else if (entry.path === options.last) held = entry;
    else {
      writeFileSync(target, entry.data, { mode: 0o600 });
      // An empty file has nothing of its own to sync: its folder's sync keeps its name.
      if (entry.data.length > 0) files.push(target);
    }
  }
  if (options.sync === true) for (const path of [...files, ...folders]) sync(path);
  if (held === undefined) return;
  const target = join(directory, ...held.path.split("/"));
  writeFileSync(target, held.data, { mode: 0o600 });
  if (options.sync === true) {
    sync(target);
    sync(dirname(target));
  }
}

/** fsync of a file, or of a folder (its entries); a platform that cannot open a folder to sync it (Windows) skips folders. */
function sync(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if (statSync(path).isDirectory()) return;
    throw error;
  }
  try {
    // Through the module object (not a named import), so a test can watch the syncs happen.
    fs.fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function header(path: string, size: number, type: "0" | "5"): Buffer {
  const name = Buffer.from(path, "utf8");
  if (name.length > 100) throw new Error(`fw/db: cannot pack ${path}: a name longer than 100 bytes`);
  const head = Buffer.alloc(BLOCK);
  name.copy(head, 0);
  head.write(octal(type === "5" ? 0o700 : 0o600, 8), 100, "ascii");
  head.write(octal(0, 8), 108, "ascii");
  head.write(octal(0, 8), 116, "ascii");
  head.write(octal(size, 12), 124, "ascii");
  head.write(octal(0, 12), 136, "ascii");
  head.write(type, 156, "ascii");
  head.write("ustar\u000000", 257, "ascii");
  // The checksum is the sum of the header's bytes with its own field read as spaces.
  head.fill(0x20, 148, 156);
  const sum = head.reduce((total, byte) => total + byte, 0);
  head.write(`${sum.toString(8).padStart(6, "0")}\u0000 `, 148, "ascii");
  return head;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\u0000`;
}

function text(head: Buffer, at: number, length: number): string {
  const field = head.subarray(at, at + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString("utf8");
}

function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

/** A relative path inside the archive's root: a leading `/` dropped, `..`, empty and `\` parts refused. */
function safePath(raw: string): string {
  const path = raw.replace(/^\/+/, "").replace(/\/+$/, "");
  const parts = path.split("/");
  if (path === "" || parts.some((part) => part === "" || part === "." || part === ".." || part.includes("\\"))) {
    throw new Error(`fw/db: the archive holds an entry outside its folder: ${JSON.stringify(raw)}`);
  }
  return posix.normalize(path);
}
