import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { inPlaceRestartDue, restartedStatus, STALE_MOUNT } from "./liveness-probe.ts";

const pod = (wanted?: string, extra: Record<string, string> = {}): V1Pod => ({
  metadata: {
    name: "o-0",
    annotations: { ...(wanted ? { "livepeer.org/config-hash-wanted": wanted } : {}), ...extra },
  },
  spec: { containers: [{ name: "livepeer" }] },
  status: {
    containerStatuses: [
      {
        name: "livepeer",
        ready: true,
        restartCount: 2,
        image: "i",
        imageID: "",
        state: { running: { startedAt: new Date("2026-11-28T04:00:00Z") } },
      },
    ],
  },
});

describe("the fleet's play of the node's liveness probe", () => {
  it.each<[string, V1Pod, string, string | undefined, boolean]>([
    ["no request", pod(), "", "A", false],
    ["requested B, started with B", pod("B"), "B", "B", false],
    ["requested B, the ConfigMap still holds A", pod("B"), "", "A", false],
    ["requested B, the ConfigMap holds B", pod("B"), "", "B", true],
    [
      "requested B, the ConfigMap holds B, the mount never refreshed",
      pod("B", { [STALE_MOUNT]: "true" }),
      "",
      "B",
      false,
    ],
  ])("%s: restarts = %s", (_, p, started, mounted, due) =>
    expect(inPlaceRestartDue(p, started, mounted)).toBe(due),
  );

  it("reports the restart as the kubelet does: restartCount + 1, the previous run as lastState", () => {
    const at = new Date("2026-11-28T05:00:00Z");
    const [c] = restartedStatus(pod("B"), at).status.containerStatuses;
    expect(c).toMatchObject({
      restartCount: 3,
      state: { running: { startedAt: "2026-11-28T05:00:00.000Z" } },
      lastState: {
        terminated: { startedAt: "2026-11-28T04:00:00.000Z", finishedAt: "2026-11-28T05:00:00.000Z" },
      },
    });
  });
});
