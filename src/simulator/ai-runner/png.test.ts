import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { colourOfSeed, readSolidPng, solidPng } from "./png.ts";

describe("solidPng", () => {
  it.each([
    [1, 1, [255, 0, 0]],
    [64, 36, [12, 200, 99]],
    [512, 512, [0, 0, 0]],
  ] as const)("writes a %ix%i PNG of one colour that reads back with valid CRCs", (w, h, rgb) => {
    const png = solidPng(w, h, rgb);
    expect(png.subarray(1, 4).toString("ascii")).toBe("PNG");
    expect(readSolidPng(png)).toEqual({ width: w, height: h, rgb });
  });

  it("fills every row: filter byte 0 then the colour on every pixel", () => {
    const png = solidPng(3, 2, [1, 2, 3]);
    const idatAt = png.indexOf("IDAT");
    const length = png.readUInt32BE(idatAt - 4);
    const raw = inflateSync(png.subarray(idatAt + 4, idatAt + 4 + length));
    expect([...raw]).toEqual([0, 1, 2, 3, 1, 2, 3, 1, 2, 3, 0, 1, 2, 3, 1, 2, 3, 1, 2, 3]);
  });

  it("refuses a size that is not a whole number > 0", () => {
    expect(() => solidPng(0, 10, [0, 0, 0])).toThrow(/give whole numbers > 0/);
    expect(() => solidPng(1.5, 10, [0, 0, 0])).toThrow(/1.5x10/);
  });

  it("gives one colour per seed", () => {
    expect(colourOfSeed(0x030201)).toEqual([1, 2, 3]);
    expect(colourOfSeed(42)).toEqual(colourOfSeed(42));
  });
});
