import { describe, expect, it } from "vitest";
import type { StoredWebhook } from "../../schema/webhook.ts";
import { statusChanged, type Verdict } from "../runtime/index.ts";
import { computeStatus, ownedStatus } from "./status.ts";

const now = new Date("2026-03-01T12:00:00Z");
const passed: Verdict = {
  status: "True",
  reason: "ValidURL",
  message: "events are POSTed to https://example.com/h",
};
const wh = (status?: StoredWebhook["status"], generation = 3): StoredWebhook => ({
  metadata: { name: "wh", namespace: "n", generation },
  spec: { name: "wh", url: "https://example.com/h", sharedSecretRef: { name: "s", key: "k" } },
  ...(status ? { status } : {}),
});

describe("webhook status", () => {
  it("is Ready=True Configured with observedGeneration when every check passed", () => {
    const s = computeStatus(wh(), [passed, passed], now);
    expect(s.observedGeneration).toBe(3);
    expect(s.conditions).toEqual([
      {
        type: "Ready",
        status: "True",
        reason: "Configured",
        message: "events are delivered to https://example.com/h, signed with key k of Secret s",
        observedGeneration: 3,
        lastTransitionTime: "2026-03-01T12:00:00Z",
      },
    ]);
  });

  it("takes reason and message from the first failed check", () => {
    const s = computeStatus(
      wh(),
      [passed, { status: "False", reason: "SecretKeyMissing", message: "add k" }],
      now,
    );
    expect(s.conditions[0]).toMatchObject({ status: "False", reason: "SecretKeyMissing", message: "add k" });
  });

  it("is unchanged (no write) when reconciled again with the same result", () => {
    const first = computeStatus(wh(), [passed], now);
    const again = computeStatus(wh({ ...first }), [passed], new Date("2026-03-01T13:00:00Z"));
    expect(statusChanged(ownedStatus(wh({ ...first })), again)).toBe(false);
  });

  it("ignores fields other writers own when deciding to write", () => {
    const first = computeStatus(wh(), [passed], now);
    const current = wh({ ...first, lastTriggeredAt: 1234, lastFailure: { timestamp: 1 } });
    expect(statusChanged(ownedStatus(current), computeStatus(current, [passed], now))).toBe(false);
  });

  it("is a change when the generation moved", () => {
    const first = computeStatus(wh(), [passed], now);
    const next = wh({ ...first }, 4);
    expect(statusChanged(ownedStatus(next), computeStatus(next, [passed], now))).toBe(true);
  });
});
