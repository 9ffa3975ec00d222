// A solid-colour PNG written by hand (signature, IHDR, one IDAT of deflated rows, IEND): the
// simulated runner's "generated image", without an image library.
import { crc32, deflateSync, inflateSync } from "node:zlib";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export type Rgb = readonly [number, number, number];

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** width x height pixels of one colour, 8-bit RGB, no interlace. */
export function solidPng(width: number, height: number, rgb: Rgb): Buffer {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new RangeError(`image size ${width}x${height}: give whole numbers > 0`);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // colour type: truecolour
  // compression, filter and interlace methods stay 0
  const row = Buffer.alloc(1 + width * 3); // filter byte 0 (None), then RGB triples
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.alloc(row.length * height);
  for (let y = 0; y < height; y++) row.copy(raw, y * row.length);
  return Buffer.concat([
    SIGNATURE,
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A colour from a seed, so a seed always gives the same image (as a model with a fixed seed). */
export function colourOfSeed(seed: number): Rgb {
  const s = Math.abs(Math.trunc(seed)) >>> 0;
  return [s & 0xff, (s >>> 8) & 0xff, (s >>> 16) & 0xff];
}

/** Reads back the size and the first pixel of a PNG written by solidPng (for tests and checks). */
export function readSolidPng(png: Buffer): { width: number; height: number; rgb: Rgb } {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG: wrong signature");
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  let at = 8;
  const idat: Buffer[] = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString("ascii", at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (crc32(png.subarray(at + 4, at + 8 + length)) !== png.readUInt32BE(at + 8 + length)) {
      throw new Error(`PNG chunk ${type}: CRC mismatch`);
    }
    if (type === "IDAT") idat.push(data);
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  return { width, height, rgb: [raw[1]!, raw[2]!, raw[3]!] };
}
