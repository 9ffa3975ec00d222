// When an Orchestrator is looked at again without a watch event: soon for what no watch sees,
// slowly (spread) for other unready states, never for a Ready one unless a step asks.
import { describe, expect, it } from "vitest";
import type { Condition } from "../../schema/condition.ts";
import { NOT_READY_RECHECK_MS, POLL_MS, revisitAfter } from "./revisit.ts";

const ready = (status: Condition["status"], reason: string): Condition[] => [
  { type: "Ready", status, reason, message: "", lastTransitionTime: "2026-01-01T00:00:00Z" },
];

describe("revisitAfter", () => {
  it.each<[string, Parameters<typeof revisitAfter>, number | undefined]>([
    ["Ready: nothing to poll", [ready("True", "Serving"), undefined, 0.5], undefined],
    ["Ready, a step's grace period ends", [ready("True", "Serving"), 61_000, 0.5], 61_000],
    ["not Ready: slowly", [ready("False", "PodsNotReady"), undefined, 0.5], NOT_READY_RECHECK_MS],
    ["no Ready yet: slowly", [[], undefined, 0.5], NOT_READY_RECHECK_MS],
    ["spread 10% below", [ready("Unknown", "CheckingNode"), undefined, 0], NOT_READY_RECHECK_MS * 0.9],
    ["spread 10% above", [ready("False", "PodsNotReady"), undefined, 1], NOT_READY_RECHECK_MS * 1.1],
    [
      "a devnet ConfigMap outside the cache: soon",
      [ready("False", "DevnetDeploymentUnavailable"), undefined, 0.5],
      POLL_MS,
    ],
    [
      "a keystore read that failed: soon",
      [ready("False", "KeystoreSecretUnreadable"), undefined, 0.5],
      POLL_MS,
    ],
    // The keystore Secret is read by name, not watched: its creation or fix is polled.
    ["a keystore Secret missing: soon", [ready("False", "KeystoreSecretNotFound"), undefined, 0.5], POLL_MS],
    ["a keystore key missing: soon", [ready("False", "KeystoreSecretKeyMissing"), undefined, 0.5], POLL_MS],
    ["an empty keystore password: soon", [ready("False", "KeystorePasswordEmpty"), undefined, 0.5], POLL_MS],
    [
      "a keystore password with a newline: soon",
      [ready("False", "KeystorePasswordTrailingNewline"), undefined, 0.5],
      POLL_MS,
    ],
    ["the sooner of the two", [ready("False", "KeystoreSecretUnreadable"), 5_000, 0.5], 5_000],
  ])("%s", (_, args, want) => {
    const got = revisitAfter(...args);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toBeCloseTo(want);
  });
});
