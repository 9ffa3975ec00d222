// AMF0, the encoding of RTMP commands (connect, createStream, publish, onStatus ...) and of the
// @setDataFrame metadata: numbers, booleans, strings, objects, null/undefined, ECMA and strict
// arrays, dates (read as numbers).

export type Amf0Value =
  | number
  | boolean
  | string
  | null
  | undefined
  | Amf0Value[]
  | { [key: string]: Amf0Value };

const MARKER = {
  number: 0x00,
  boolean: 0x01,
  string: 0x02,
  object: 0x03,
  null: 0x05,
  undefined: 0x06,
  ecmaArray: 0x08,
  objectEnd: 0x09,
  strictArray: 0x0a,
  date: 0x0b,
  longString: 0x0c,
} as const;

export function encodeAmf0(values: readonly Amf0Value[]): Buffer {
  const parts: Buffer[] = [];
  const utf8 = (s: string) => {
    const b = Buffer.from(s, "utf8");
    const len = Buffer.alloc(2);
    len.writeUInt16BE(b.length);
    return Buffer.concat([len, b]);
  };
  const write = (v: Amf0Value): void => {
    if (typeof v === "number") {
      const b = Buffer.alloc(9);
      b[0] = MARKER.number;
      b.writeDoubleBE(v, 1);
      parts.push(b);
    } else if (typeof v === "boolean") {
      parts.push(Buffer.from([MARKER.boolean, v ? 1 : 0]));
    } else if (typeof v === "string") {
      parts.push(Buffer.from([MARKER.string]), utf8(v));
    } else if (v === null) {
      parts.push(Buffer.from([MARKER.null]));
    } else if (v === undefined) {
      parts.push(Buffer.from([MARKER.undefined]));
    } else if (Array.isArray(v)) {
      const head = Buffer.alloc(5);
      head[0] = MARKER.strictArray;
      head.writeUInt32BE(v.length, 1);
      parts.push(head);
      for (const item of v) write(item);
    } else {
      parts.push(Buffer.from([MARKER.object]));
      for (const [key, item] of Object.entries(v)) {
        parts.push(utf8(key));
        write(item);
      }
      parts.push(Buffer.from([0, 0, MARKER.objectEnd]));
    }
  };
  for (const v of values) write(v);
  return Buffer.concat(parts);
}

/** Every value in the buffer; throws on truncated or unknown data. */
export function decodeAmf0(data: Uint8Array): Amf0Value[] {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  const need = (n: number) => {
    if (at + n > buf.length) throw new Error("truncated AMF0 data");
  };
  const shortString = () => {
    need(2);
    const len = buf.readUInt16BE(at);
    need(2 + len);
    const s = buf.toString("utf8", at + 2, at + 2 + len);
    at += 2 + len;
    return s;
  };
  const properties = (): Record<string, Amf0Value> => {
    const out: Record<string, Amf0Value> = {};
    for (;;) {
      const key = shortString();
      need(1);
      if (key === "" && buf[at] === MARKER.objectEnd) {
        at += 1;
        return out;
      }
      out[key] = read();
    }
  };
  const read = (): Amf0Value => {
    need(1);
    const marker = buf[at++];
    switch (marker) {
      case MARKER.number:
        need(8);
        at += 8;
        return buf.readDoubleBE(at - 8);
      case MARKER.boolean:
        need(1);
        return buf[at++] !== 0;
      case MARKER.string:
        return shortString();
      case MARKER.longString: {
        need(4);
        const len = buf.readUInt32BE(at);
        need(4 + len);
        at += 4 + len;
        return buf.toString("utf8", at - len, at);
      }
      case MARKER.object:
        return properties();
      case MARKER.ecmaArray:
        need(4);
        at += 4; // an approximate count; the end marker decides
        return properties();
      case MARKER.strictArray: {
        need(4);
        const count = buf.readUInt32BE(at);
        at += 4;
        return Array.from({ length: count }, () => read());
      }
      case MARKER.date:
        need(10);
        at += 10;
        return buf.readDoubleBE(at - 10);
      case MARKER.null:
        return null;
      case MARKER.undefined:
        return undefined;
      default:
        throw new Error(`unsupported AMF0 marker 0x${(marker ?? 0).toString(16)}`);
    }
  };
  const values: Amf0Value[] = [];
  while (at < buf.length) values.push(read());
  return values;
}
