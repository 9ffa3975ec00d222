// When an Orchestrator is looked at again without a watch event: soon for what no watch sees,
// slowly (spread) for other unready states, never for a Ready one unless a step asks.
import { describe, expect, it } from "vitest";
import { NOT_READY_RECHECK_MS, POLL_MS, revisitAfter } from "./revisit.ts";

describe("revisitAfter", () => {
  it.each<[string, Parameters<typeof revisitAfter>, number | undefined]>([
    ["Ready: nothing to poll", [{ status: "True", reason: "Serving" }, undefined, 0.5], undefined],
    ["Ready, a step's grace period ends", [{ status: "True", reason: "Serving" }, 61_000, 0.5], 61_000],
    [
      "not Ready: slowly",
      [{ status: "False", reason: "PodsNotReady" }, undefined, 0.5],
      NOT_READY_RECHECK_MS,
    ],
    ["no Ready yet: slowly", [undefined, undefined, 0.5], NOT_READY_RECHECK_MS],
    [
      "spread 10% below",
      [{ status: "Unknown", reason: "CheckingNode" }, undefined, 0],
      NOT_READY_RECHECK_MS * 0.9,
    ],
    [
      "spread 10% above",
      [{ status: "False", reason: "PodsNotReady" }, undefined, 1],
      NOT_READY_RECHECK_MS * 1.1,
    ],
    [
      "a devnet ConfigMap outside the cache: soon",
      [{ status: "False", reason: "DevnetDeploymentUnavailable" }, undefined, 0.5],
      POLL_MS,
    ],
    [
      "a keystore read that failed: soon",
      [{ status: "False", reason: "KeystoreSecretUnreadable" }, undefined, 0.5],
      POLL_MS,
    ],
    ["the sooner of the two", [{ status: "False", reason: "KeystoreSecretUnreadable" }, 5_000, 0.5], 5_000],
  ])("%s", (_, args, want) => {
    const got = revisitAfter(...args);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toBeCloseTo(want);
  });
});
