import { describe, expect, it } from "vitest";
import { EventCorrelator, type EventSpec, microTime } from "./events.ts";

const warn = (message = "Secret s does not exist"): EventSpec => ({
  type: "Warning",
  reason: "SecretNotFound",
  message,
});

describe("event deduplication", () => {
  it("turns repeats of the same object, reason and message into one Event with a growing count", () => {
    const now = 0;
    const c = new EventCorrelator({ now: () => now });
    expect(c.decide("uid-1", warn()).action).toBe("create");
    expect(c.decide("uid-1", warn())).toMatchObject({ action: "series", count: 2 });
    expect(c.decide("uid-1", warn())).toMatchObject({ action: "series", count: 3 });
  });

  it("keeps different messages, reasons, types and objects apart", () => {
    const c = new EventCorrelator({ now: () => 0 });
    expect(c.decide("uid-1", warn("a")).action).toBe("create");
    expect(c.decide("uid-1", warn("b")).action).toBe("create");
    expect(c.decide("uid-1", { ...warn("a"), reason: "SecretKeyMissing" }).action).toBe("create");
    expect(c.decide("uid-1", { ...warn("a"), type: "Normal" }).action).toBe("create");
    expect(c.decide("uid-2", warn("a")).action).toBe("create");
  });

  it("starts a new Event once the window has passed", () => {
    let now = 0;
    const c = new EventCorrelator({ windowMs: 60_000, now: () => now });
    c.decide("uid-1", warn());
    now = 59_000;
    expect(c.decide("uid-1", warn()).action).toBe("series");
    now = 61_000;
    expect(c.decide("uid-1", warn()).action).toBe("create");
  });

  it("rate-limits each object: a burst, then one per refill period, counting what it drops", () => {
    let now = 0;
    const c = new EventCorrelator({ burst: 3, refillPerMs: 1 / 1000, windowMs: 3_600_000, now: () => now });
    const actions = Array.from({ length: 6 }, () => c.decide("uid-1", warn()).action);
    expect(actions).toEqual(["create", "series", "series", "drop", "drop", "drop"]);
    expect(c.decide("uid-2", warn()).action).toBe("create"); // other objects have their own bucket
    now = 1000;
    // The write that gets through carries the dropped occurrences too.
    expect(c.decide("uid-1", warn())).toEqual({ action: "series", key: expect.any(String), count: 7 });
  });

  it("retries the create when the first write failed", () => {
    const c = new EventCorrelator({ now: () => 0 });
    const first = c.decide("uid-1", warn());
    c.forget(first.key);
    expect(c.decide("uid-1", warn()).action).toBe("create");
  });
});

describe("what the correlator keeps", () => {
  it("drops series after their window and buckets once they are full again, with what was attached", () => {
    let now = 0;
    const c = new EventCorrelator<string>({
      windowMs: 60_000,
      burst: 3,
      refillPerMs: 1 / 10_000,
      now: () => now,
    });
    const keys = ["a", "b", "c"].map((m) => c.decide("uid-1", warn(m)).key);
    c.attach(keys[0]!, "event-a");
    expect(c.attached(keys[0]!)).toBe("event-a");
    expect(c.sizes).toEqual({ series: 3, buckets: 1 });
    now = 30_001; // tokens full again (3 at one per 10 s), series still in their window
    c.decide("uid-2", warn());
    expect(c.sizes).toEqual({ series: 4, buckets: 1 });
    now = 60_002; // uid-1's series are past their window; uid-2's bucket is full again
    c.decide("uid-3", warn());
    expect(c.sizes).toEqual({ series: 2, buckets: 1 });
    expect(c.attached(keys[0]!)).toBeUndefined();
    c.attach(keys[0]!, "gone"); // a series that is gone takes nothing
    expect(c.attached(keys[0]!)).toBeUndefined();
    now = 200_000;
    c.decide("uid-1", warn("d"));
    expect(c.sizes).toEqual({ series: 1, buckets: 1 });
  });

  it("keys a series by a digest of the message, not the message", () => {
    const c = new EventCorrelator({ now: () => 0 });
    const long = "x".repeat(10_000);
    const { key } = c.decide("uid-1", warn(long));
    expect(key.length).toBeLessThan(64);
    expect(key).not.toContain("x".repeat(20));
    expect(c.decide("uid-1", warn(long))).toEqual({ action: "series", key, count: 2 });
    expect(c.decide("uid-1", warn(`${long}y`)).action).toBe("create");
  });
});

describe("microTime", () => {
  it("has the six fractional digits the API server requires", () => {
    expect(microTime(new Date("2026-01-01T00:00:00.123Z"))).toBe("2026-01-01T00:00:00.123000Z");
  });
});
