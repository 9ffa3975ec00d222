import { describe, expect, it } from "vitest";
import type { NodeReading } from "./node-reading.ts";
import type { NodeTarget } from "./target.ts";
import {
  endpointFindings,
  logStatusFindings,
  nodeReachableVerdict,
  reachability,
  simulatedPods,
} from "./verdicts.ts";

const target = (pod: string, over: Partial<NodeTarget> = {}): NodeTarget => ({
  pod,
  uid: `uid-${pod}`,
  ip: "127.1.0.9",
  cliPort: 7935,
  servicePort: 8935,
  role: "orchestrator",
  ready: true,
  hasLog: true,
  restartCount: 0,
  aiExpected: false,
  ...over,
});
const ok = (pod: string, over: Partial<NodeReading> = {}): NodeReading => ({
  pod,
  at: new Date(),
  answered: ["/status", "/metrics"],
  simulated: false,
  ...over,
});
const refused = (pod: string): NodeReading =>
  ok(pod, {
    answered: [],
    failed: {
      endpoint: "/status",
      url: "http://127.1.0.9:7935",
      reason: "connection-refused",
      message: "GET /status of http://127.1.0.9:7935 failed: connection refused",
    },
  });

describe("nodeReachableVerdict: the last answer kept until the node is read again", () => {
  const wasTrue = { status: "True", reason: "EndpointsAnswering", message: "answering: o-0 (/status)" };
  const wasFalse = { status: "False", reason: "ConnectionRefused", message: "pod o-0: refused" };
  const wasUnknown = { status: "Unknown", reason: "NoReadyPod", message: "no node pod is Ready yet" };
  const look = (targets: NodeTarget[], readings: NodeReading[]) => ({ targets, report: { readings } });
  it.each([
    ["controller just started, True before", undefined, wasTrue, "True", "EndpointsAnswering"],
    ["controller just started, False before", undefined, wasFalse, "False", "ConnectionRefused"],
    ["controller just started, nothing before", undefined, undefined, "Unknown", "NotChecked"],
    ["controller just started, Unknown before", undefined, wasUnknown, "Unknown", "NotChecked"],
    [
      "a Ready pod not read yet, True before",
      look([target("o-0")], []),
      wasTrue,
      "True",
      "EndpointsAnswering",
    ],
    [
      "a Ready pod not read yet, Unknown before",
      look([target("o-0")], []),
      wasUnknown,
      "Unknown",
      "Checking",
    ],
    ["no Ready pod: not kept", look([target("o-0", { ready: false })], []), wasTrue, "Unknown", "NoReadyPod"],
    [
      "read and refused: the reading wins",
      look([target("o-0")], [refused("o-0")]),
      wasTrue,
      "False",
      "ConnectionRefused",
    ],
    [
      "read and answering: the reading wins",
      look([target("o-0")], [ok("o-0")]),
      wasFalse,
      "True",
      "EndpointsAnswering",
    ],
  ] as const)("%s", (_, doctor, previous, status, reason) => {
    expect(nodeReachableVerdict(doctor, "video", previous)).toMatchObject({ status, reason });
  });

  it("keeps the previous message as it was (the condition does not move at all)", () => {
    expect(nodeReachableVerdict(undefined, "video", { ...wasTrue })).toEqual(wasTrue);
  });
});

describe("reachability", () => {
  it.each([
    ["no Ready pod", [target("o-0", { ready: false })], [], "Unknown", "NoReadyPod"],
    ["a Ready pod not read yet", [target("o-0")], [], "Unknown", "Checking"],
    [
      "every Ready pod answers",
      [target("o-0"), target("o-1")],
      [ok("o-0"), ok("o-1")],
      "True",
      "EndpointsAnswering",
    ],
    [
      "one pod refuses",
      [target("o-0"), target("o-1")],
      [ok("o-0"), refused("o-1")],
      "False",
      "ConnectionRefused",
    ],
    [
      "a failure outranks a pod not read yet",
      [target("o-0"), target("o-1")],
      [refused("o-0")],
      "False",
      "ConnectionRefused",
    ],
    [
      "pods that are not Ready do not count",
      [target("o-0"), target("o-1", { ready: false })],
      [ok("o-0")],
      "True",
      "EndpointsAnswering",
    ],
  ] as const)("%s", (_, targets, readings, status, reason) => {
    expect(reachability(targets, readings, "video")).toMatchObject({ status, reason });
  });

  it("names the pod, the endpoint, why, and the next step", () => {
    const v = reachability([target("o-0")], [refused("o-0")], "video");
    expect(v.message).toContain("pod o-0: GET /status of http://127.1.0.9:7935 failed: connection refused");
    expect(v.message).toContain("kubectl logs -n video o-0");
  });

  it("says which endpoints answered", () => {
    expect(reachability([target("o-0")], [ok("o-0")], "video").message).toBe(
      "answering: o-0 (/status, /metrics)",
    );
  });
});

describe("simulatedPods", () => {
  it("lists the pods whose answers carry the marker", () => {
    expect(simulatedPods([ok("a", { simulated: true }), ok("b")])).toEqual(["a"]);
  });
});

describe("endpointFindings", () => {
  it.each([
    [
      "sessions at the limit",
      target("o"),
      ok("o", { metrics: { currentSessions: 4, maxSessions: 4 } }),
      ["OrchestratorCapped"],
    ],
    ["headroom", target("o"), ok("o", { metrics: { currentSessions: 3, maxSessions: 4 } }), []],
    [
      "GPU memory above 85 %",
      target("o"),
      ok("o", { gpus: [{ id: "0", memoryTotal: 100, memoryFree: 10 }] }),
      ["GpuMemoryHigh"],
    ],
    [
      "AI expected, none advertised",
      target("o", { aiExpected: true }),
      ok("o", { capabilities: [1, 2] }),
      ["VideoOnlyOrchestratorRejectsAi"],
    ],
    ["AI advertised", target("o", { aiExpected: true }), ok("o", { capabilities: [1, 27] }), []],
    [
      "a transcoder is not asked for AI",
      target("t", { role: "transcoder", aiExpected: true }),
      ok("t", { capabilities: [1] }),
      [],
    ],
  ] as const)("%s", (_, t, reading, ids) => {
    expect(endpointFindings(t, reading).map((f) => f.id)).toEqual(ids);
  });
});

describe("logStatusFindings", () => {
  const at = (s: string) => new Date(`2026-01-02T${s}Z`);
  it("one finding per id across pods, since the earliest line, with the line, meaning and action", () => {
    const found = logStatusFindings([
      { id: "PortInUse", pod: "o-1", firstAt: at("10:00:05.5"), lastAt: at("10:00:05.5"), line: "late" },
      {
        id: "PortInUse",
        pod: "o-0",
        firstAt: at("10:00:01.5"),
        lastAt: at("10:00:09"),
        line: "E bind: address already in use",
      },
    ]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ id: "PortInUse", severity: "error", since: "2026-01-02T10:00:01Z" });
    expect(found[0]!.message).toMatch(
      /^pods o-0, o-1 logged "E bind: address already in use": A port .* Free the port/,
    );
  });

  it("a finding carried over from an earlier status keeps its message", () => {
    const found = logStatusFindings([
      {
        id: "KeystorePasswordWrong",
        pod: "",
        firstAt: at("10:00:00"),
        lastAt: at("10:00:00"),
        line: "",
        message: "as before",
      },
    ]);
    expect(found[0]?.message).toBe("as before");
  });
});
