/**
 * A protobuf writer for the few wire types OTLP's trace messages use (varint, fixed32, fixed64,
 * length-delimited), into one growing Buffer. A nested message or a string is written in place
 * with one byte kept for its length and moved up in the rare case the length needs more (a
 * message or string of 128 bytes or more): no size pass, no intermediate objects.
 */
export class ProtoWriter {
  buf: Buffer;
  pos = 0;

  constructor(size = 4096) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Makes room for `more` bytes past the position. */
  reserve(more: number): void {
    const need = this.pos + more;
    if (need <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** Starts over, keeping the buffer. */
  reset(): void {
    this.pos = 0;
  }

  /** A field's tag: its number and wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32). */
  tag(field: number, wire: number): void {
    this.uint32((field << 3) | wire);
  }

  /** An unsigned varint below 2^32. */
  uint32(value: number): void {
    this.reserve(5);
    const buf = this.buf;
    let v = value >>> 0;
    while (v > 127) {
      buf[this.pos++] = (v & 127) | 128;
      v >>>= 7;
    }
    buf[this.pos++] = v;
  }

  /** A safe integer as int64's varint (a negative one in ten bytes, two's complement). */
  int64(value: number): void {
    if (value >= 0 && value <= 0xffffffff) {
      this.uint32(value);
      return;
    }
    const hi = Math.floor(value / 4294967296);
    this.varint64((value - hi * 4294967296) >>> 0, hi >>> 0);
  }

  /** A 64-bit varint from its low and high 32 bits. */
  varint64(lo: number, hi: number): void {
    this.reserve(10);
    const buf = this.buf;
    while (hi !== 0) {
      buf[this.pos++] = (lo & 127) | 128;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    while (lo > 127) {
      buf[this.pos++] = (lo & 127) | 128;
      lo >>>= 7;
    }
    buf[this.pos++] = lo;
  }

  fixed32(value: number): void {
    this.reserve(4);
    this.pos = this.buf.writeUInt32LE(value >>> 0, this.pos);
  }

  /** A fixed64 from its low and high 32 bits. */
  fixed64(lo: number, hi: number): void {
    this.reserve(8);
    this.buf.writeUInt32LE(lo >>> 0, this.pos);
    this.pos = this.buf.writeUInt32LE(hi >>> 0, this.pos + 4);
  }

  double(value: number): void {
    this.reserve(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
  }

  /** A string's UTF-8 bytes, length first. */
  string(value: string): void {
    const length = value.length;
    // A short ASCII string (attribute keys, methods, routes) is copied here: cheaper than a call
    // into Buffer's UTF-8 writer; anything else goes there.
    if (length < 128) {
      this.reserve(1 + length);
      const buf = this.buf;
      const start = this.pos + 1;
      let i = 0;
      for (; i < length; i++) {
        const code = value.charCodeAt(i);
        if (code > 127) break;
        buf[start + i] = code;
      }
      if (i === length) {
        buf[start - 1] = length;
        this.pos = start + length;
        return;
      }
    }
    // A UTF-16 code unit is at most 3 UTF-8 bytes (a surrogate pair's two make 4).
    this.reserve(5 + length * 3);
    const start = this.pos + 1;
    const written = this.buf.write(value, start, "utf8");
    this.pos = start + written;
    this.close(start - 1, written);
  }

  /**
   * Bytes given as hex (trace and span ids), length first: the bytes the hex held, so an id that is
   * not hex (an app's link made by hand) costs its own field, never the message around it.
   */
  hex(value: string): void {
    this.reserve(6 + (value.length >>> 1));
    const start = this.pos + 1;
    const written = this.buf.write(value, start, value.length >>> 1, "hex");
    this.pos = start + written;
    this.close(start - 1, written);
  }

  /** Raw bytes, already encoded (a length-delimited field's tag and length included by the caller). */
  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Starts a nested message of `field`: returns where its length goes, for `end`. */
  begin(field: number): number {
    this.tag(field, 2);
    this.reserve(1);
    return this.pos++;
  }

  /** Ends the nested message `begin` started at `at`: writes its length there. */
  end(at: number): void {
    this.close(at, this.pos - at - 1);
  }

  /**
   * Writes `length` at `at`, where one byte was kept for it and the `length` bytes after it end
   * at the position; moves them up when the length needs more than the one byte.
   */
  private close(at: number, length: number): void {
    if (length < 128) {
      this.buf[at] = length;
      return;
    }
    const size = length < 1 << 14 ? 2 : length < 1 << 21 ? 3 : length < 1 << 28 ? 4 : 5;
    this.reserve(size - 1);
    this.buf.copyWithin(at + size, at + 1, at + 1 + length);
    const end = at + size + length;
    this.pos = at;
    this.uint32(length);
    this.pos = end;
  }
}
