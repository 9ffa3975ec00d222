import { describe, expect, it } from "vitest";
import { leaseAhead, leaseLongEnough, minLeaseLeft } from "./lease-ahead.ts";

const base = {
  maxInFlight: 64,
  inFlight: 0,
  ready: 0,
  ratePerSecond: 0,
  leaseMs: 30_000,
  minLeaseLeftMs: 15_000,
};

describe("leaseAhead: what an enqueue may take leased to this replica", () => {
  it.each([
    ["cold start (no rate): two rounds of slots", {}, 128],
    ["slots busy and some waiting count against it", { inFlight: 64, ready: 40 }, 24],
    ["full already: nothing", { inFlight: 64, ready: 100 }, 0],
    [
      "a fast replica takes what it starts in half the waiting time (6,000/s x 7.5 s)",
      { ratePerSecond: 6_000 },
      45_000,
    ],
    ["a slow one stays at the floor (10/s x 7.5 s < 128)", { ratePerSecond: 10 }, 128],
    ["no time to wait (lease no longer than the minimum): nothing", { minLeaseLeftMs: 30_000 }, 0],
  ])("%s", (_name, over, expected) => {
    expect(leaseAhead({ ...base, ...over })).toBe(expected);
  });
});

describe("leaseLongEnough / minLeaseLeft", () => {
  it.each([
    [10_000 + 15_000, 10_000, 15_000, true],
    [10_000 + 14_999, 10_000, 15_000, false],
    [5_000, 10_000, 15_000, false],
  ])("leased until %d at %d with %d needed: %s", (until, now, need, ok) => {
    expect(leaseLongEnough(until, now, need)).toBe(ok);
  });

  it.each([
    ["default 10 s timeout, 30 s lease: deadline + 5 s", 10_000, 30_000, 15_000],
    ["a short lease caps it at half the lease", 1_000, 3_000, 1_500],
  ])("%s", (_name, timeoutMs, leaseMs, expected) => {
    expect(minLeaseLeft(timeoutMs, leaseMs)).toBe(expected);
  });
});
