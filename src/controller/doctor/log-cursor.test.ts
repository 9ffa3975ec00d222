import { describe, expect, it } from "vitest";
import { LogCursor, parseTimedLine, type TimedLine } from "./log-cursor.ts";

const line = (stamp: string, text = "x"): TimedLine => parseTimedLine(`${stamp} ${text}`)!;

describe("parseTimedLine", () => {
  it.each([
    ["2026-01-02T15:04:05.123456789Z hello", 1767366245123456789n, "hello"],
    ["2026-01-02T15:04:05.1Z hello world", 1767366245100000000n, "hello world"],
    ["2026-01-02T15:04:05Z ", 1767366245000000000n, ""],
    ["2026-01-02T16:04:05.5+01:00 x", 1767366245500000000n, "x"],
  ])("%s", (raw, ns, text) => {
    const t = parseTimedLine(raw);
    expect(t?.ns).toBe(ns);
    expect(t?.text).toBe(text);
    expect(t?.at.getTime()).toBe(Number(ns / 1_000_000n));
  });

  it.each(["no stamp here", "", "2026-13-45 x"])("not a timed line: %j", (raw) => {
    expect(parseTimedLine(raw)).toBeUndefined();
  });
});

describe("LogCursor", () => {
  it("first reads the tail, then everything since the last line's second", () => {
    const c = new LogCursor();
    expect(c.from(500)).toEqual({ tailLines: 500 });
    c.beginRead();
    c.accept(line("2026-01-02T15:04:05.900Z"));
    expect(c.from(500)).toEqual({ since: new Date("2026-01-02T15:04:05Z") });
  });

  it("hands out each line once although reads overlap by up to a second", () => {
    const c = new LogCursor();
    const got: string[] = [];
    const read = (lines: TimedLine[]) => {
      c.beginRead();
      for (const l of lines) if (c.accept(l)) got.push(l.text);
    };
    const a = line("2026-01-02T15:04:05.100Z", "a");
    const b1 = line("2026-01-02T15:04:05.200Z", "b1");
    const b2 = line("2026-01-02T15:04:05.200Z", "b2"); // same instant: only the count tells them apart
    const c3 = line("2026-01-02T15:04:05.200Z", "c");
    const d = line("2026-01-02T15:04:06Z", "d");
    read([a, b1, b2]);
    // sinceTime=15:04:05: the server sends the whole second again, plus what came since.
    read([a, b1, b2, c3, d]);
    read([d]);
    expect(got).toEqual(["a", "b1", "b2", "c", "d"]);
  });

  it("skipSecond moves a cursor stuck inside one over-full second to the next", () => {
    const c = new LogCursor();
    c.beginRead();
    c.accept(line("2026-01-02T15:04:05.300Z"));
    c.skipSecond();
    expect(c.from(1)).toEqual({ since: new Date("2026-01-02T15:04:06Z") });
    c.beginRead();
    expect(c.accept(line("2026-01-02T15:04:05.900Z"))).toBe(false);
    expect(c.accept(line("2026-01-02T15:04:06.000Z"))).toBe(true);
  });
});
