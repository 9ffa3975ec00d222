import { Readable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { classifyLines, LogClassifier } from "./classifier.ts";
import { linesOf } from "./lines.ts";

const LEVEL = "[libx264 @ 0x55d5c8a3c800] MB rate (2073600) > level limit (983040)";
const PORT =
  "E1121 10:00:01.000000       1 webserver.go:25] listen tcp 127.0.0.1:7935: bind: address already in use";
const TIMEOUT = (i: number) =>
  `I1121 10:00:01.000000       1 lb.go:189] LB: Transcode loop timed out for key=s${i}`;
const INFO = (i: number) =>
  `I1121 10:00:01.000000       1 orchestrator.go:700] manifestID=m${i % 97} seqNo=${i} Transcoding of segment took=${i % 1000}ms`;

describe("LogClassifier", () => {
  it("counts per condition, keeps first and last lines, orders errors first", () => {
    const c = new LogClassifier();
    const lines = [INFO(1), TIMEOUT(1), LEVEL, INFO(2), PORT, TIMEOUT(2), LEVEL];
    for (const line of lines) c.push(line);
    const findings = c.findings();
    expect(findings.map((f) => [f.id, f.severity, f.count])).toEqual([
      ["PortInUse", "error", 1],
      ["LevelLimitExceeded", "warning", 2],
      ["TranscodeLoopTimedOut", "normal", 2],
    ]);
    const timeout = findings[2]!;
    expect(timeout.firstLine).toBe(TIMEOUT(1));
    expect(timeout.firstLineNumber).toBe(2);
    expect(timeout.lastLine).toBe(TIMEOUT(2));
    expect(timeout.lastLineNumber).toBe(6);
    expect(timeout.samples).toEqual([TIMEOUT(1), TIMEOUT(2)]);
    expect(findings[1]!.samples).toEqual([LEVEL]);
    expect(findings[0]!.message).toBe("listen tcp <host:port>: bind: address already in use: seen 1 time");
    expect(c.lines).toBe(7);
  });

  it("returns the ids a line shows, several when it shows several", () => {
    const c = new LogClassifier();
    expect(c.push(INFO(3))).toEqual([]);
    expect(
      c.push('E1121 ot_rpc.go:267] Unable to transcode err="Unsupported input pixel format"').sort(),
    ).toEqual(["UnableToTranscode", "UnsupportedPixelFormat"]);
  });

  it("bounds samples and cuts very long lines", () => {
    const c = new LogClassifier({ maxSamples: 2, maxLineLength: 200 });
    for (let i = 0; i < 10; i++) c.push(TIMEOUT(i));
    c.push(`${LEVEL} ${"x".repeat(10_000)}`);
    const [level, timeout] = c.findings();
    expect(timeout!.samples).toHaveLength(2);
    expect(timeout!.count).toBe(10);
    expect(level!.firstLine.length).toBe(203);
    expect(level!.firstLine.endsWith("...")).toBe(true);
  });

  it("reads a stream line by line, CRLF included", async () => {
    const input = Readable.from([`${INFO(1)}\r\n${LEVEL.slice(0, 20)}`, `${LEVEL.slice(20)}\r\n${PORT}`]);
    const { findings, lines } = await classifyLines(linesOf(input));
    expect(lines).toBe(3);
    expect(findings.map((f) => f.id)).toEqual(["PortInUse", "LevelLimitExceeded"]);
    expect(findings[1]!.firstLine).toBe(LEVEL);
  });
});

describe("classifier over a large log", () => {
  it("classifies 2 million generated lines with bounded memory", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const total = 2_000_000;
    async function* generate() {
      for (let i = 0; i < total; i++) {
        if (i % 1000 === 0) yield LEVEL;
        else if (i % 250_000 === 7) yield PORT;
        else if (i % 5000 === 3) yield TIMEOUT(i);
        else yield INFO(i);
      }
    }
    gc();
    const before = process.memoryUsage().heapUsed;
    const classifier = new LogClassifier();
    let peak = before;
    let n = 0;
    for await (const line of generate()) {
      classifier.push(line);
      if (++n % 200_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    gc();
    const retained = process.memoryUsage().heapUsed - before;
    const counts = Object.fromEntries(classifier.findings().map((f) => [f.id, f.count]));
    expect(classifier.lines).toBe(total);
    expect(counts).toEqual({
      PortInUse: Math.floor((total - 7 - 1) / 250_000) + 1,
      LevelLimitExceeded: total / 1000,
      TranscodeLoopTimedOut: Array.from({ length: total / 5000 }, (_, k) => k * 5000 + 3).filter(
        (i) => i % 1000 !== 0 && i % 250_000 !== 7,
      ).length,
    });
    // The log is ~180 MB of text; holding it (or any per-line state) would show here.
    expect(retained).toBeLessThan(8 * 1024 * 1024);
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});
