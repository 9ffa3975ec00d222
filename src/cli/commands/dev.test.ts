import { describe, expect, it } from "vitest";
import { UsageError } from "../command.ts";
import { chainSettings } from "./dev.ts";

describe("dev: the devnet's round ticker from the flags", () => {
  it.each([
    ["defaults: a block a second, 50-block rounds", {}, { blockIntervalMs: 1000, roundLength: 50 }],
    ["half-second blocks", { "block-interval": "0.5" }, { blockIntervalMs: 500, roundLength: 50 }],
    ["short rounds", { "round-length": "10" }, { blockIntervalMs: 1000, roundLength: 10 }],
  ])("%s", (_name, flags, want) => {
    expect(chainSettings(flags)).toEqual(want);
  });

  it.each([
    ["a word", { "block-interval": "fast" }, /--block-interval: 'fast' is not a number of seconds/],
    ["too fast", { "block-interval": "0.01" }, /at least 0\.05/],
    ["an empty round", { "round-length": "0" }, /--round-length: '0' is not a whole number of blocks/],
    ["a fraction of a block", { "round-length": "2.5" }, /--round-length: '2\.5'/],
  ])("refuses %s, naming the flag", (_name, flags, message) => {
    expect(() => chainSettings(flags)).toThrow(UsageError);
    expect(() => chainSettings(flags)).toThrow(message);
  });
});
