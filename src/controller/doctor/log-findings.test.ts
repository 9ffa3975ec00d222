import { describe, expect, it } from "vitest";
import { LogFindings, type LogOccurrence, type PodLife, stillInForce } from "./log-findings.ts";

const T = (s: string) => new Date(`2026-01-02T${s}Z`);
const seen: LogOccurrence = { id: "X", pod: "o-0", firstAt: T("10:00:00"), lastAt: T("10:05:00"), line: "l" };
const pod = (over: Partial<PodLife> = {}): PodLife => ({
  pod: "o-0",
  ready: true,
  startedAt: T("09:00:00"),
  ...over,
});

describe("stillInForce", () => {
  it.each([
    [
      "quiet: a line 4 min ago, cleared after 5",
      { after: "quiet", minutes: 5 },
      T("10:09:00"),
      [pod()],
      true,
    ],
    ["quiet: no line for 5 min", { after: "quiet", minutes: 5 }, T("10:10:00"), [pod()], false],
    ["restart: the container that printed it still runs", { after: "restart" }, T("11:00:00"), [pod()], true],
    [
      "restart: a newer container is not Ready yet (crash loop)",
      { after: "restart" },
      T("11:00:00"),
      [pod({ ready: false, startedAt: T("10:06:00") })],
      true,
    ],
    [
      "restart: a container started after the line is Ready",
      { after: "restart" },
      T("11:00:00"),
      [pod({ startedAt: T("10:06:00") })],
      false,
    ],
    ["restart: the pod is gone", { after: "restart" }, T("11:00:00"), [pod({ pod: "o-1" })], false],
    ["no rule: holds", undefined, T("23:00:00"), [], true],
  ] as const)("%s", (_, clears, now, pods, expected) => {
    expect(stillInForce(seen, clears, now, pods)).toBe(expected);
  });

  it("a finding carried over from an earlier status (pod unknown) needs every pod restarted and Ready", () => {
    const carried = { ...seen, pod: "" };
    const restarted = pod({ startedAt: T("10:06:00") });
    const old = pod({ pod: "o-1" });
    expect(stillInForce(carried, { after: "restart" }, T("11:00:00"), [restarted, old])).toBe(true);
    expect(stillInForce(carried, { after: "restart" }, T("11:00:00"), [restarted])).toBe(false);
    expect(stillInForce(carried, { after: "restart" }, T("11:00:00"), [])).toBe(true);
  });
});

describe("LogFindings", () => {
  it("keeps one occurrence per condition and pod, first and last time, and forgets cleared ones", () => {
    const f = new LogFindings();
    f.record("OrchestratorCapped", "o-0", T("10:01:00"), "capped 1");
    f.record("OrchestratorCapped", "o-0", T("10:02:00"), "capped 2");
    f.record("OrchestratorCapped", "o-1", T("10:03:00"), "capped 3");
    f.record("PortInUse", "o-0", T("10:00:00"), "bind: address already in use");
    expect(f.size).toBe(3);
    const now = f.inForce(T("10:07:30"), [pod(), pod({ pod: "o-1" })]);
    // OrchestratorCapped clears after 5 quiet minutes: o-0's last at 10:02 is gone, o-1's stays.
    expect(now.map((o) => [o.id, o.pod, o.line])).toEqual([
      ["OrchestratorCapped", "o-1", "capped 3"],
      ["PortInUse", "o-0", "bind: address already in use"],
    ]);
    expect(f.size).toBe(2);
  });

  it("cuts long lines", () => {
    const f = new LogFindings();
    f.record("PortInUse", "o-0", T("10:00:00"), "x".repeat(1000));
    expect(f.inForce(T("10:00:01"), [pod()])[0]!.line.length).toBeLessThan(310);
  });
});
