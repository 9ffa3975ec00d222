// The protobuf wire format, just what the device-plugin messages use: varints (bool, int32,
// int64) and length-delimited fields (string, nested message, map entry). Unknown fields are
// skipped on decode, as protobuf requires.
export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
export const WIRE_I32 = 5;

export class ProtoWriter {
  #parts: number[] = [];

  #varint(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    while (v >= 0x80n) {
      this.#parts.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.#parts.push(Number(v));
  }

  #tag(field: number, wire: number): void {
    this.#varint(BigInt((field << 3) | wire));
  }

  /** proto3 omits default values: false, 0 and "" are not written. */
  bool(field: number, value: boolean | undefined): this {
    if (value) {
      this.#tag(field, WIRE_VARINT);
      this.#varint(1n);
    }
    return this;
  }

  int(field: number, value: number | bigint | undefined): this {
    if (value !== undefined && BigInt(value) !== 0n) {
      this.#tag(field, WIRE_VARINT);
      this.#varint(BigInt(value));
    }
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.#tag(field, WIRE_LEN);
    this.#varint(BigInt(value.length));
    for (const b of value) this.#parts.push(b);
    return this;
  }

  string(field: number, value: string | undefined): this {
    return value ? this.bytes(field, Buffer.from(value, "utf8")) : this;
  }

  /** Every element is written, empty strings included (repeated fields keep them). */
  strings(field: number, values: readonly string[] | undefined): this {
    for (const v of values ?? []) this.bytes(field, Buffer.from(v, "utf8"));
    return this;
  }

  /** A nested message (written even when empty: presence matters for message fields). */
  message(field: number, encoded: Uint8Array | undefined): this {
    return encoded ? this.bytes(field, encoded) : this;
  }

  /** map<string, string>: one entry message {1: key, 2: value} per pair, in key order (stable bytes). */
  stringMap(field: number, map: Record<string, string> | undefined): this {
    for (const key of Object.keys(map ?? {}).sort()) {
      this.message(field, new ProtoWriter().string(1, key).string(2, map![key]).finish());
    }
    return this;
  }

  finish(): Buffer {
    return Buffer.from(this.#parts);
  }
}

export interface ProtoField {
  field: number;
  wire: number;
  /** The varint value (wire 0). */
  varint: bigint;
  /** The payload (wire 2). */
  bytes: Buffer;
}

function readVarint(buf: Buffer, offset: number): { value: bigint; next: number } {
  let value = 0n;
  let shift = 0n;
  for (let i = offset; i < buf.length; i++) {
    const b = buf[i]!;
    value |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return { value, next: i + 1 };
    shift += 7n;
    if (shift > 63n) throw new Error("protobuf: varint longer than 10 bytes");
  }
  throw new Error("protobuf: truncated varint");
}

/** The fields of one message in wire order; repeated fields appear once per element. */
export function readFields(buf: Uint8Array): ProtoField[] {
  const data = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const fields: ProtoField[] = [];
  let offset = 0;
  while (offset < data.length) {
    const tag = readVarint(data, offset);
    offset = tag.next;
    const field = Number(tag.value >> 3n);
    const wire = Number(tag.value & 7n);
    if (field === 0) throw new Error("protobuf: field number 0");
    let varint = 0n;
    let bytes: Buffer = Buffer.alloc(0);
    switch (wire) {
      case WIRE_VARINT: {
        const v = readVarint(data, offset);
        varint = v.value;
        offset = v.next;
        break;
      }
      case WIRE_LEN: {
        const len = readVarint(data, offset);
        const end = len.next + Number(len.value);
        if (end > data.length) throw new Error("protobuf: length-delimited field runs past the message");
        bytes = data.subarray(len.next, end);
        offset = end;
        break;
      }
      case WIRE_I64:
        offset += 8;
        break;
      case WIRE_I32:
        offset += 4;
        break;
      default:
        throw new Error(`protobuf: unsupported wire type ${wire}`);
    }
    if (offset > data.length) throw new Error("protobuf: truncated fixed-width field");
    fields.push({ field, wire, varint, bytes });
  }
  return fields;
}

/** Helpers that read one field kind, ignoring fields of a different wire type. */
export function stringsOf(fields: ProtoField[], field: number): string[] {
  return fields.filter((f) => f.field === field && f.wire === WIRE_LEN).map((f) => f.bytes.toString("utf8"));
}

export function stringOf(fields: ProtoField[], field: number): string {
  return stringsOf(fields, field).at(-1) ?? "";
}

export function messagesOf(fields: ProtoField[], field: number): Buffer[] {
  return fields.filter((f) => f.field === field && f.wire === WIRE_LEN).map((f) => f.bytes);
}

export function varintOf(fields: ProtoField[], field: number): bigint {
  return fields.filter((f) => f.field === field && f.wire === WIRE_VARINT).at(-1)?.varint ?? 0n;
}

export function boolOf(fields: ProtoField[], field: number): boolean {
  return varintOf(fields, field) !== 0n;
}

export function stringMapOf(fields: ProtoField[], field: number): Record<string, string> {
  const map: Record<string, string> = {};
  for (const entry of messagesOf(fields, field)) {
    const f = readFields(entry);
    map[stringOf(f, 1)] = stringOf(f, 2);
  }
  return map;
}
