import { describe, expect, it } from "vitest";
import { cliUrl, type LivePod, livePods } from "./apply.ts";

describe("livePods", () => {
  const p = (
    name: string,
    o: { component?: string; phase?: string; ip?: string; deleting?: boolean },
  ): LivePod => ({
    metadata: {
      name,
      labels: { "app.kubernetes.io/component": o.component ?? "orchestrator" },
      ...(o.deleting ? { deletionTimestamp: "2025-01-01T00:00:00Z" } : {}),
    },
    status: { phase: o.phase ?? "Running", ...(o.ip === "" ? {} : { podIP: o.ip ?? "127.1.0.5" }) },
  });
  it.each([
    ["a running orchestrator pod", p("a", {}), true],
    ["a transcoder (restarted for a new capacity instead)", p("t", { component: "transcoder" }), false],
    ["a Pending pod (reads the new ConfigMap when it starts)", p("b", { phase: "Pending" }), false],
    ["no pod IP yet", p("c", { ip: "" }), false],
    ["being deleted", p("d", { deleting: true }), false],
  ] as const)("%s", (_n, pod, want) => expect(livePods([pod], "orchestrator").length === 1).toBe(want));
});

describe("cliUrl", () => {
  it.each([
    ["127.1.0.5", "http://127.1.0.5:7935"],
    ["fd00::5", "http://[fd00::5]:7935"],
  ])("%s", (ip, want) => expect(cliUrl(ip, 7935)).toBe(want));
});
