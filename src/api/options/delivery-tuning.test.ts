import { describe, expect, it } from "vitest";
import { DEFAULT_RETENTION, DEFAULT_RETRY_SCHEDULE } from "../delivery/index.ts";
import { parseDeliveryTuning } from "./delivery-tuning.ts";

describe("parseDeliveryTuning", () => {
  it("keeps the engine's defaults when nothing is given", () => {
    expect(parseDeliveryTuning({})).toEqual({
      schedule: DEFAULT_RETRY_SCHEDULE,
      retention: DEFAULT_RETENTION,
    });
  });

  it.each([
    [{ timeout: "30s" }, { timeoutMs: 30_000 }],
    [
      { retryFirst: "1s", retryMax: "10m", retryFor: "6h" },
      { schedule: { firstDelayMs: 1000, maxDelayMs: 600_000, giveUpAfterMs: 21_600_000 } },
    ],
    [
      { logMaxAge: "1d", logMaxPerWebhook: "50", eventsMaxAge: "2d" },
      { retention: { logMaxAgeMs: 86_400_000, logMaxPerWebhook: 50, settledMaxAgeMs: 172_800_000 } },
    ],
  ])("%o -> %o", (flags, expected) => {
    expect(parseDeliveryTuning(flags)).toMatchObject(expected);
  });

  it.each([
    [{ timeout: "soon" }, /--delivery-timeout "soon" is not a duration/],
    [{ retryFirst: "0" }, /--delivery-retry-first "0" is not a duration/],
    [{ logMaxPerWebhook: "-1" }, /--delivery-log-max-per-webhook "-1" must be a whole number/],
    [
      { retryFirst: "2h", retryMax: "1h" },
      /--delivery-retry-first\/--delivery-retry-max\/--delivery-retry-for: /,
    ],
  ])("%o is refused naming the flag", (flags, message) => {
    expect(() => parseDeliveryTuning(flags)).toThrow(message);
  });
});
