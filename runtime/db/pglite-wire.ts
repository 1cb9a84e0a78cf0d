/**
 * The slice of PostgreSQL's frontend/backend protocol (version 3) fw speaks to the embedded
 * engine itself (pglite-session.ts): messages built into one buffer per exchange, and the
 * engine's answer read in one pass. Values travel as text both ways, as PGlite sends them.
 * https://www.postgresql.org/docs/current/protocol-message-formats.html
 */

/** A column of a result: its name and its type's OID. */
export interface WireField {
  readonly name: string;
  readonly type: number;
}

/** What the engine answered to one exchange (everything up to its ReadyForQuery). */
export interface WireResponse {
  /** The parameters' type OIDs (ParameterDescription, answer to a statement's Describe). */
  readonly params: readonly number[] | undefined;
  /** The result's columns (RowDescription); `noData` when the statement returns none. */
  readonly fields: readonly WireField[] | undefined;
  readonly noData: boolean;
  /** Each DataRow's values, as text (null for NULL). */
  readonly rows: (string | null)[][];
  /** Each CommandComplete's tag ("SELECT 1", "INSERT 0 3", "CREATE TABLE"). */
  readonly tags: readonly string[];
  /** The first ErrorResponse's fields by their one-letter code (C: SQLSTATE, M: message, …). */
  readonly error: Readonly<Record<string, string>> | undefined;
  /** The last ReadyForQuery's transaction status: I idle, T in a transaction, E in a failed one. */
  readonly status: string | undefined;
}

/** One message: its type byte, then its length (itself included) and its body. */
function message(type: string, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + body.length);
  out.write(type, 0, "latin1");
  out.writeInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return out;
}

function cstring(text: string): Buffer {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.includes(0)) throw new Error("fw/db: a statement or name holds a NUL character");
  return Buffer.concat([bytes, Buffer.alloc(1)]);
}

function int16(value: number): Buffer {
  const out = Buffer.allocUnsafe(2);
  out.writeInt16BE(value, 0);
  return out;
}

function int32(value: number): Buffer {
  const out = Buffer.allocUnsafe(4);
  out.writeInt32BE(value, 0);
  return out;
}

/** Parse: prepares `sql` as the statement `name`, its parameters' types left to the engine. */
export function parseMessage(name: string, sql: string): Buffer {
  return message("P", Buffer.concat([cstring(name), cstring(sql), int16(0)]));
}

/** Describe of a prepared statement: its ParameterDescription, then its RowDescription or NoData. */
export function describeStatement(name: string): Buffer {
  return message("D", Buffer.concat([Buffer.from("S", "latin1"), cstring(name)]));
}

/** Bind: the unnamed portal on statement `name`, every parameter and result as text. */
export function bindMessage(name: string, values: readonly (string | null)[]): Buffer {
  const parts = [cstring(""), cstring(name), int16(0), int16(values.length)];
  for (const value of values) {
    if (value === null) parts.push(int32(-1));
    else {
      const bytes = Buffer.from(value, "utf8");
      parts.push(int32(bytes.length), bytes);
    }
  }
  parts.push(int16(0));
  return message("B", Buffer.concat(parts));
}

/** Execute: the unnamed portal, all its rows. */
export const EXECUTE: Buffer = message("E", Buffer.concat([cstring(""), int32(0)]));
/** Sync: ends the exchange (and an implicit transaction); the engine answers ReadyForQuery. */
export const SYNC: Buffer = message("S", Buffer.alloc(0));

/** Close of a prepared statement. */
export function closeStatement(name: string): Buffer {
  return message("C", Buffer.concat([Buffer.from("S", "latin1"), cstring(name)]));
}

/** Query: the simple protocol, for a script of several statements without parameters. */
export function simpleQuery(sql: string): Buffer {
  return message("Q", cstring(sql));
}

/** Reads an exchange's answer: the messages fw acts on; the others (notices, statuses) are skipped. */
export function readResponse(bytes: Uint8Array): WireResponse {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let params: number[] | undefined;
  let fields: WireField[] | undefined;
  let noData = false;
  const rows: (string | null)[][] = [];
  const tags: string[] = [];
  let error: Record<string, string> | undefined;
  let status: string | undefined;
  for (let at = 0; at + 5 <= data.length; ) {
    const type = data[at];
    const end = at + 1 + data.readInt32BE(at + 1);
    if (end > data.length) throw new Error("fw/db: the embedded engine's answer ends inside a message");
    const start = at + 5;
    switch (type) {
      case 0x44 /* D: DataRow */: {
        const count = data.readInt16BE(start);
        const row: (string | null)[] = new Array<string | null>(count);
        let p = start + 2;
        for (let i = 0; i < count; i++) {
          const length = data.readInt32BE(p);
          p += 4;
          if (length < 0) row[i] = null;
          else {
            row[i] = data.toString("utf8", p, p + length);
            p += length;
          }
        }
        rows.push(row);
        break;
      }
      case 0x54 /* T: RowDescription */: {
        const count = data.readInt16BE(start);
        const described: WireField[] = [];
        let p = start + 2;
        for (let i = 0; i < count; i++) {
          const zero = data.indexOf(0, p);
          const name = data.toString("utf8", p, zero);
          // table OID (4), column number (2), type OID (4), type size (2), modifier (4), format (2)
          described.push({ name, type: data.readInt32BE(zero + 7) });
          p = zero + 19;
        }
        fields = described;
        break;
      }
      case 0x74 /* t: ParameterDescription */: {
        const count = data.readInt16BE(start);
        params = Array.from({ length: count }, (_, i) => data.readInt32BE(start + 2 + 4 * i));
        break;
      }
      case 0x6e /* n: NoData */:
        noData = true;
        break;
      case 0x43 /* C: CommandComplete */:
        tags.push(data.toString("utf8", start, end - 1));
        break;
      case 0x45 /* E: ErrorResponse */:
        error ??= errorFields(data, start, end);
        break;
      case 0x5a /* Z: ReadyForQuery */:
        status = String.fromCharCode(data[start] as number);
        break;
    }
    at = end;
  }
  return { params, fields, noData, rows, tags, error, status };
}

/** An ErrorResponse's fields: a code byte, then its text, up to a zero byte. */
function errorFields(data: Buffer, start: number, end: number): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let p = start; p < end && data[p] !== 0; ) {
    const code = String.fromCharCode(data[p] as number);
    const zero = data.indexOf(0, p + 1);
    fields[code] = data.toString("utf8", p + 1, zero);
    p = zero + 1;
  }
  return fields;
}
