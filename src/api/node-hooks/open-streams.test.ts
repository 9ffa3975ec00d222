import { describe, expect, it } from "vitest";
import { OpenStreams } from "./open-streams.ts";

describe("when a gateway stream started", () => {
  it.each([
    ["a new stream starts now", [["g", "s", 100]], 100],
    [
      "a repeated call within the window keeps the first start",
      [
        ["g", "s", 100],
        ["g", "s", 150],
      ],
      100,
    ],
    [
      "a call after the window is a new start",
      [
        ["g", "s", 100],
        ["g", "s", 1200],
      ],
      1200,
    ],
    [
      "another stream of the gateway starts on its own",
      [
        ["g", "s", 100],
        ["g", "t", 150],
      ],
      150,
    ],
    [
      "the same name on another gateway starts on its own",
      [
        ["g", "s", 100],
        ["h", "s", 150],
      ],
      150,
    ],
  ] as const)("%s", (_, calls, expected) => {
    const open = new OpenStreams(1000);
    let last = 0;
    for (const [g, s, now] of calls) last = open.start(g, s, now);
    expect(last).toBe(expected);
  });

  it("after its end, the same name is a new stream", () => {
    const open = new OpenStreams(1000);
    expect(open.start("g", "s", 100)).toBe(100);
    open.end("g", "s");
    expect(open.start("g", "s", 200)).toBe(200);
    expect(open.size).toBe(1);
  });
});
