// Ready as ARCHITECTURE.md defines it: every pod Ready AND the node's endpoints answering AND no
// error finding; warnings never flip it. Table-driven over what the reconciler saw.
import { describe, expect, it } from "vitest";
import { OrchestratorSpecSchema, type StoredOrchestrator } from "../../schema/orchestrator.ts";
import type { DoctorReport, NodeReading, NodeTarget } from "../doctor/index.ts";
import type { ChainStatus } from "../node-status/chain-status.ts";
import type { PodFacts } from "../node-status/facts.ts";
import type { KeystoreState } from "../node-status/keystore.ts";
import type { Plan } from "./plan.ts";
import { computeStatus, nodeReachable, ready, type Seen, simulated } from "./status.ts";

const plan = {
  problems: [],
  holds: [],
  sessionLimit: { maxSessions: 5, reason: "cpu" },
  serviceAddr: "o:8935",
  candidates: [],
} as unknown as Plan;
const orch: StoredOrchestrator = {
  metadata: { name: "o", namespace: "video", generation: 1 },
  spec: OrchestratorSpecSchema.parse({}),
};
const readyPod: PodFacts = {
  metadata: { name: "o-0", uid: "u" },
  status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
};
const pendingPod: PodFacts = {
  metadata: { name: "o-0", uid: "u" },
  status: {
    phase: "Pending",
    conditions: [],
    containerStatuses: [
      {
        name: "livepeer",
        ready: false,
        restartCount: 0,
        state: { waiting: { reason: "ContainerCreating" } },
      },
    ],
  },
};
const target: NodeTarget = {
  pod: "o-0",
  uid: "u",
  ip: "127.1.0.3",
  cliPort: 7935,
  servicePort: 8935,
  role: "orchestrator",
  ready: true,
  hasLog: true,
  restartCount: 0,
  aiExpected: false,
};
const answering: NodeReading = {
  pod: "o-0",
  at: new Date(),
  answered: ["/status", "/metrics"],
  simulated: true,
};
const failing: NodeReading = {
  pod: "o-0",
  at: new Date(),
  answered: [],
  simulated: false,
  failed: {
    endpoint: "/status",
    url: "http://127.1.0.3:7935",
    reason: "http-status",
    message: "GET /status of http://127.1.0.3:7935 failed: HTTP 500",
  },
};
const finding = (id: string, severity: "error" | "warning" | "normal") => ({
  id,
  severity,
  message: `${id} seen`,
  since: "2026-01-02T10:00:00Z",
});
const doctor = (readings: NodeReading[], findings: DoctorReport["findings"] = [], t = target) => ({
  targets: [t],
  report: { readings, findings },
});

/** What the chain says: Registered with the given reason, and one finding of that severity. */
const onChain = (reason: string, severity?: "error" | "warning"): ChainStatus => ({
  conditions: [
    ["ChainHealthy", { status: "True", reason: "RPCHealthy", message: "chain 1337, block 9" }],
    ["Registered", { status: severity ? "False" : "True", reason, message: `${reason} seen` }],
  ],
  findings: severity ? [{ id: reason, severity, message: `${reason} seen` }] : [],
  facts: { serviceURI: "https://o:8935", activeSet: true, lastRewardRound: 7, balance: "1" },
});

function seen(over: Partial<Seen> = {}): Seen {
  return { orch, plan, pods: [readyPod], nodes: [], doctor: doctor([answering]), ...over };
}
const readyOf = (s: Seen) => {
  const status = computeStatus(s, new Date("2026-01-02T11:00:00Z"));
  return status.conditions?.find((c) => c.type === "Ready");
};

describe("Ready", () => {
  it.each<[string, Partial<Seen>, string, string]>([
    ["pods Ready and the node answers", {}, "True", "Serving"],
    [
      "a warning finding never flips Ready",
      { doctor: doctor([answering], [finding("OrchestratorCapped", "warning")]) },
      "True",
      "Serving",
    ],
    [
      "a normal finding neither",
      { doctor: doctor([answering], [finding("TranscodeLoopTimedOut", "normal")]) },
      "True",
      "Serving",
    ],
    [
      "an error finding stops service",
      { doctor: doctor([answering], [finding("InsufficientGasFunds", "error")]) },
      "False",
      "InsufficientGasFunds",
    ],
    [
      "a chain error (not registered) stops service",
      { chain: onChain("NotRegistered", "error") },
      "False",
      "NotRegistered",
    ],
    [
      "a chain warning (service URI moved) does not",
      { chain: onChain("ServiceURIMismatch", "warning") },
      "True",
      "Serving",
    ],
    ["the node does not answer", { doctor: doctor([failing]) }, "False", "NodeUnreachable"],
    ["the node not read yet", { doctor: doctor([]) }, "Unknown", "CheckingNode"],
    [
      "a pod not Ready",
      { pods: [pendingPod], doctor: doctor([], [], { ...target, ready: false }) },
      "False",
      "PodsNotReady",
    ],
    [
      "no pod",
      { pods: [], doctor: { targets: [], report: { readings: [], findings: [] } } },
      "False",
      "PodPending",
    ],
    [
      "keystore Secret missing",
      { keystore: { state: "missing", secret: "keys" } },
      "False",
      "KeystoreSecretNotFound",
    ],
    [
      "keystore key missing",
      { keystore: { state: "missing-keys", secret: "keys", missing: ["password"], present: ["key.json"] } },
      "False",
      "KeystoreSecretKeyMissing",
    ],
  ])("%s: %s %s", (_, over, status, reason) => {
    expect(readyOf(seen(over))).toMatchObject({ status, reason });
  });

  it("an error finding explains a crash-looping pod rather than only saying it is not Ready", () => {
    const v = ready(seen({ pods: [pendingPod] }), [finding("KeystorePasswordWrong", "error")]);
    expect(v).toMatchObject({ status: "False", reason: "KeystorePasswordWrong" });
    expect(v.message).toMatch(/KeystorePasswordWrong seen; 1 of 1 pod\(s\) not Ready: o-0 ContainerCreating/);
  });

  it("says what answered, and that warnings exist", () => {
    const v = ready(seen(), [finding("OrchestratorCapped", "warning")]);
    expect(v.message).toBe(
      "all 1 pod(s) Ready, the node answers (o-0 (/status, /metrics)); 1 warning finding(s), see status.findings",
    );
  });

  it("the missing keystore Secret is named, with the command that creates it", () => {
    const v = ready(seen({ keystore: { state: "missing", secret: "keys" } }));
    expect(v.message).toContain("Secret video/keys (spec.keystoreSecret) does not exist");
    expect(v.message).toContain("printf '%s' \"$PASSWORD\" | kubectl create secret generic keys -n video");
  });

  it("a missing key is named", () => {
    const v = ready(
      seen({
        keystore: { state: "missing-keys", secret: "keys", missing: ["password"], present: ["key.json"] },
      }),
    );
    expect(v.message).toContain(
      'Secret video/keys (spec.keystoreSecret) has no key "password" (it has: key.json)',
    );
  });
});

describe("NodeReachable and Simulated", () => {
  it("NodeReachable follows the readings", () => {
    expect(nodeReachable(seen())).toMatchObject({ status: "True", reason: "EndpointsAnswering" });
    expect(nodeReachable(seen({ doctor: doctor([failing]) }))).toMatchObject({
      status: "False",
      reason: "EndpointError",
    });
    expect(nodeReachable(seen({ doctor: undefined }))).toMatchObject({ status: "Unknown" });
  });

  it.each<[string, Partial<Seen>, string]>([
    ["the node's answers say Simulated", {}, "True"],
    [
      "an annotated pod",
      {
        pods: [
          {
            ...readyPod,
            metadata: { ...readyPod.metadata, annotations: { "livepeer.org/simulated": "true" } },
          },
        ],
        doctor: doctor([]),
      },
      "True",
    ],
    ["a real node's answers", { doctor: doctor([{ ...answering, simulated: false }]) }, "False"],
    ["nothing read yet", { doctor: doctor([]) }, "Unknown"],
  ])("%s: %s", (_, over, status) => {
    expect(simulated(seen(over)).status).toBe(status);
  });
});

describe("findings", () => {
  it("the keystore's newline and the doctor's findings are listed, each since it was first seen", () => {
    const keystore: KeystoreState = {
      state: "trailing-newline",
      secret: "keys",
      finding: {
        id: "KeystorePasswordTrailingNewline",
        severity: "error",
        message: "m",
        meaning: "x",
        action: "fix it",
      },
    };
    const status = computeStatus(
      seen({
        keystore,
        doctor: doctor([answering], [finding("OrchestratorCapped", "warning")]),
        orch: {
          ...orch,
          status: {
            findings: [
              {
                id: "OrchestratorCapped",
                severity: "warning",
                message: "old",
                since: "2026-01-01T00:00:00Z",
              },
            ],
          },
        },
      }),
      new Date("2026-01-02T11:00:00Z"),
    );
    expect(status.findings).toEqual([
      {
        id: "KeystorePasswordTrailingNewline",
        severity: "error",
        message: "m. fix it",
        since: "2026-01-02T11:00:00Z",
      },
      {
        id: "OrchestratorCapped",
        severity: "warning",
        message: "OrchestratorCapped seen",
        since: "2026-01-01T00:00:00Z",
      },
    ]);
    expect(status.conditions?.find((c) => c.type === "Ready")).toMatchObject({
      status: "False",
      reason: "KeystorePasswordTrailingNewline",
    });
  });
});

describe("the chain in status", () => {
  it("sets ChainHealthy and Registered, lists the chain's findings and shows its facts", () => {
    const status = computeStatus(seen({ chain: onChain("ServiceURIMismatch", "warning") }), new Date());
    expect((status.conditions ?? []).map((c) => [c.type, c.status, c.reason])).toEqual(
      expect.arrayContaining([
        ["ChainHealthy", "True", "RPCHealthy"],
        ["Registered", "False", "ServiceURIMismatch"],
      ]),
    );
    expect((status.findings ?? []).map((f) => [f.id, f.severity])).toEqual([
      ["ServiceURIMismatch", "warning"],
    ]);
    expect(status).toMatchObject({
      serviceURI: "https://o:8935",
      activeSet: true,
      lastRewardRound: 7,
      balance: "1",
    });
  });

  it("not asked: both conditions there, Unknown", () => {
    const status = computeStatus(seen(), new Date());
    expect(
      (status.conditions ?? [])
        .filter((c) => ["ChainHealthy", "Registered"].includes(c.type))
        .map((c) => c.status),
    ).toEqual(["Unknown", "Unknown"]);
  });
});
