import { describe, expect, it } from "vitest";
import { durationText, roundTimeLeft, timeLeftText } from "./round-time.ts";

describe("durationText", () => {
  it.each([
    [0, "0 s"],
    [0.4, "0 s"],
    [45, "45 s"],
    [60, "1 min"],
    [125, "2 min 5 s"],
    [3600, "1 h"],
    [7500, "2 h 5 min"],
    [86_400 + 4 * 3600 + 59, "1 d 4 h"],
    [-5, "0 s"],
  ])("%s s -> %s", (s, text) => {
    expect(durationText(s)).toBe(text);
  });
});

describe("roundTimeLeft", () => {
  const round = { current: 7n, initialized: true, startBlock: 350n, length: 50n };
  it.each([
    [350n, undefined, { blocks: 50n }, "50 blocks"],
    [399n, 12, { blocks: 1n, seconds: 12 }, "1 block (about 12 s)"],
    [400n, 12, { blocks: 0n, seconds: 0 }, "0 blocks (about 0 s)"],
    [420n, 1, { blocks: 0n, seconds: 0 }, "0 blocks (about 0 s)"],
  ])("at round block %s", (blockNum, secondsPerBlock, left, text) => {
    const got = roundTimeLeft({ ...round, blockNum }, secondsPerBlock);
    expect(got).toEqual(left);
    expect(timeLeftText(got)).toBe(text);
  });
});
