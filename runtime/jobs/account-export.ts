/**
 * Makes one "Download my data" export (issue 41): every row of the app's models that names the
 * user, as JSON (`data.json`: the account, then each model's rows by model name, each as its
 * model reads it), and, when those rows hold stored files, a zip of the JSON and the files
 * (`files/<model path>/<row key>/<field>/<file name>`), kept by fw/files until the export goes.
 * yazl writes the zip as a stream (Zip64 past 4 GB), so no file is held in memory.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { ExportContent } from "../db/account-exports.js";
import type { Database } from "../db/database.js";
import { signInRecords } from "../db/account-sign-in.js";
import { quoteIdentifier as q } from "../db/identifier.js";
import type { SqlAccountData } from "../db/sql-account-data.js";
import { fileKeeper, type FileKeeper } from "../db/stored-files.js";
import type { ModelRows } from "../db/user-rows.js";

/** A stored file an exported row holds, and where the zip keeps it. */
interface ExportedFile {
  readonly key: string;
  readonly path: string;
  readonly size: number;
}

/** Makes export `id` unless it is gone or made already; then tells fw/auth (its link's mail). */
export async function makeExport(data: SqlAccountData, id: string): Promise<void> {
  const pending = await data.records.pending(id);
  if (pending === undefined) return; // swept, or its user deleted meanwhile
  if (!pending.made) {
    const { content, size } = await contentOf(data, pending.userId);
    const recorded = await data.records.made(id, content, size);
    if (recorded === undefined) {
      await releaseArchive(data.db, content);
      return;
    }
  }
  const state = await data.records.find(id, pending.userId);
  if (state?.expiresAt === undefined) return;
  await data.exportReady({ id, userId: pending.userId, page: pending.page, expiresAt: state.expiresAt, size: state.size ?? 0, zip: !(await isJson(data, id)) });
}

async function isJson(data: SqlAccountData, id: string): Promise<boolean> {
  const { rows } = await data.db.query(`SELECT "content" IS NOT NULL AS json FROM ${q(data.records.table)} WHERE "id" = $1`, [id]);
  return rows[0]?.["json"] === true;
}

/** The export's JSON, or the zip of it and the files, stored. */
async function contentOf(data: SqlAccountData, userId: number): Promise<{ content: ExportContent; size: number }> {
  const models = await data.rows.rowsOf(userId);
  const keeper = fileKeeper();
  const files: ExportedFile[] = [];
  const document = {
    exported: new Date().toISOString(),
    account: await accountOf(data, userId),
    models: Object.fromEntries(models.map((model) => [model.model, model.rows.map((row) => exportedRow(model, row, files))])),
  };
  const stored = keeper === undefined ? [] : await present(keeper, files);
  const json = JSON.stringify(document, null, 2);
  if (stored.length === 0 || keeper === undefined) return { content: { json }, size: Buffer.byteLength(json) };
  return zipped(data, keeper, json, stored);
}

/**
 * The user's account as the users table keeps it: key, email and roles (never the password hash
 * nor the session epoch), and how they sign in: tokens, passkeys, providers, teams (what each is,
 * never its secret: account-sign-in.ts).
 */
async function accountOf(data: SqlAccountData, userId: number): Promise<Record<string, unknown>> {
  const roles = `fw_${data.users}_roles`;
  const [known] = (await data.db.query(`SELECT to_regclass($1) IS NOT NULL AS known`, [q(roles)])).rows;
  const roleList = known?.["known"] === true ? `, ARRAY(SELECT r."role" FROM ${q(roles)} r WHERE r."user_id" = u."id" ORDER BY r."role") AS "roles"` : "";
  const [row] = (await data.db.query(`SELECT u."id", u."email"${roleList} FROM ${q(data.users)} u WHERE u."id" = $1`, [userId])).rows;
  return { id: userId, email: row?.["email"], roles: Array.isArray(row?.["roles"]) ? row["roles"] : [], ...(await signInRecords(data.db, userId)) };
}

/** A row for the JSON: each stored file as what it is (name, type, size, checksum) and where the zip has it, not its storage key. */
function exportedRow(model: ModelRows, row: Record<string, unknown>, files: ExportedFile[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  for (const column of model.table.columns) {
    const value = row[column.field] as Record<string, unknown> | undefined;
    if (column.fileAt === undefined || value === undefined || typeof value["key"] !== "string") continue;
    const { key, url: _url, ...file } = value;
    const path = `files${column.fileAt}/${String(row[model.table.key.field])}/${column.field}/${zipName(String(file["name"] ?? "file"))}`;
    files.push({ key: key as string, path, size: Number(file["size"] ?? 0) });
    out[column.field] = { ...file, file: path };
  }
  return out;
}

/** A stored file's name as a zip entry's last part: no folders, no leading dots, at most 200 characters. */
function zipName(name: string): string {
  const plain = name.replace(/[\\/\u0000-\u001f]/g, "_").replace(/^\.+/, "_");
  return (plain === "" ? "file" : plain).slice(0, 200);
}

/** The files still in the storage (a row's file deleted since is left out of the zip). */
async function present(keeper: FileKeeper, files: readonly ExportedFile[]): Promise<ExportedFile[]> {
  const out: ExportedFile[] = [];
  for (const file of files) if (await keeper.exists(file.key)) out.push(file);
  return out;
}

/** Writes the zip to a file of this machine's, then gives it to fw/files' storage as the export's archive. */
async function zipped(data: SqlAccountData, keeper: FileKeeper, json: string, files: readonly ExportedFile[]): Promise<{ content: ExportContent; size: number }> {
  const { ZipFile } = (await import("yazl")).default;
  const folder = await mkdtemp(join(tmpdir(), "fw-export-"));
  try {
    const path = join(folder, "export.zip");
    const zip = new ZipFile();
    const mtime = new Date();
    zip.addBuffer(Buffer.from(json), "data.json", { mtime });
    for (const file of files) {
      zip.addReadStreamLazy(file.path, { mtime, size: file.size, compress: false }, (done) => {
        keeper.open(file.key).then(
          (bytes) => (bytes === undefined ? done(new Error(`fw/jobs: the stored file ${file.key} went while its export was made`), undefined as never) : done(null, bytes.stream)),
          (error: unknown) => done(error, undefined as never),
        );
      });
    }
    zip.end();
    await pipeline(zip.outputStream, createWriteStream(path));
    const hash = createHash("sha256");
    let size = 0;
    for await (const chunk of createReadStream(path)) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    const info = { type: "application/zip", size, checksum: hash.digest("hex") };
    const key = await keeper.keep(path, info, { table: data.records.table, column: "archive" });
    return { content: { archive: { key, name: "my-data.zip", ...info } }, size };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** An archive whose export went while it was made: fw/files deletes it. */
async function releaseArchive(db: Database, content: ExportContent): Promise<void> {
  const keeper = fileKeeper();
  if ("json" in content || keeper === undefined) return;
  await keeper.prepare(db);
  await keeper.release(db, [content.archive.key]);
}
