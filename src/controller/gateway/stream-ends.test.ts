import { describe, expect, it } from "vitest";
import { parseTimedLine } from "../doctor/log-cursor.ts";
import { exactTime, streamEndOf } from "./stream-ends.ts";

const now = Date.parse("2026-11-24T16:00:00Z");
const line = (raw: string) => parseTimedLine(raw)!;

describe("a gateway log line as a stream end report", () => {
  it.each([
    [
      "the node's end line, to the nanosecond",
      "2026-11-24T15:02:03.456789012Z I1124 15:02:03.456789       1 mediaserver.go:609] Ended stream with manifestID=demo external manifestID=demo",
      { manifestID: "demo", externalManifestID: "demo", pod: "gw-0", at: "2026-11-24T15:02:03.456789012Z" },
    ],
    [
      "a short fraction is padded, never rounded",
      "2026-11-24T15:02:03.5Z Ended stream with manifestID=a external manifestID=b",
      { manifestID: "a", externalManifestID: "b", pod: "gw-0", at: "2026-11-24T15:02:03.500000000Z" },
    ],
    [
      "a line older than a day (history)",
      "2026-11-22T15:02:03Z Ended stream with manifestID=a external manifestID=a",
      undefined,
    ],
    [
      "another line",
      "2026-11-24T15:02:03Z I1124 mediaserver.go:781] Got push request at url=http://h/live/a/0.ts",
      undefined,
    ],
  ])("%s", (_, raw, expected) => {
    expect(streamEndOf("gw-0", line(raw), now)).toEqual(expected);
  });

  it("exactTime keeps whole seconds and nanoseconds", () => {
    expect(exactTime(1_764_000_000_000_000_001n)).toBe("2025-11-24T16:00:00.000000001Z");
  });
});
