import { describe, expect, it } from "vitest";
import { endedStreamOf } from "./end-line.ts";

describe("the end of a stream in a gateway node's log", () => {
  it.each([
    [
      "the real node's glog line",
      "I1124 15:02:03.456789       1 mediaserver.go:609] Ended stream with manifestID=demo external manifestID=demo",
      { manifestID: "demo", externalManifestID: "demo" },
    ],
    [
      "after clog's context prefix",
      "I1124 15:02:03.456789       1 mediaserver.go:609] manifestID=abc nonce=42 Ended stream with manifestID=abc external manifestID=user-name",
      { manifestID: "abc", externalManifestID: "user-name" },
    ],
    [
      "a trailing carriage return",
      "Ended stream with manifestID=a external manifestID=b\r",
      { manifestID: "a", externalManifestID: "b" },
    ],
    [
      "an unknown stream's warning",
      "W1124 mediaserver.go:603] Attempted to end unknown stream with manifestID=demo",
      undefined,
    ],
    [
      "a push request",
      "I1124 mediaserver.go:781] Got push request at url=http://h/live/demo/0.ts",
      undefined,
    ],
    ["an empty id", "Ended stream with manifestID= external manifestID=x", undefined],
  ])("%s", (_, line, expected) => {
    expect(endedStreamOf(line)).toEqual(expected);
  });
});
