// The reward runner against a real HTTP server on loopback standing in for the node's CLI port:
// it asks once per round past the deadline, records the node's answer, tells one Event per
// outcome, and remembers across a restart through the status.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { KubeObject } from "../../kube/index.ts";
import type { NodeChainCheck } from "../../node/chain/index.ts";
import type { StoredOrchestrator } from "../../schema/orchestrator.ts";
import type { ChainSubject } from "../node-status/chain-status.ts";
import type { PodFacts } from "../node-status/facts.ts";
import type { EventSpec, Recorder } from "../runtime/index.ts";
import { OrchestratorDuties } from "./orchestrator-duties.ts";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A node CLI port answering /reward with `answers` in turn (the last repeats). */
async function node(answers: { status: number; text: string }[]): Promise<{ port: number; calls: string[] }> {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    calls.push(`${req.method} ${req.url}`);
    const a = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    res.writeHead(a.status).end(a.text);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, calls };
}

class Events implements Recorder {
  readonly seen: EventSpec[] = [];
  event(_regarding: KubeObject, spec: EventSpec): void {
    this.seen.push(spec);
  }
}

const pod: PodFacts = {
  metadata: { name: "o-0", labels: { "app.kubernetes.io/component": "orchestrator" } },
  status: { phase: "Running", podIP: "127.0.0.1", conditions: [{ type: "Ready", status: "True" }] },
} as PodFacts;

const orch = (status: StoredOrchestrator["status"] = {}) =>
  ({
    metadata: { name: "o", namespace: "ns" },
    spec: { reward: true },
    status,
  }) as StoredOrchestrator;

/** Another orchestrator on the same node, with no memory of reward calls. */
const sentinel = () =>
  ({
    metadata: { name: "sentinel", namespace: "ns" },
    spec: { reward: true },
    status: {},
  }) as StoredOrchestrator;

function report(lastRewardRound: bigint, blockNum = 90n): NodeChainCheck {
  return {
    conditions: [],
    findings: [],
    facts: {},
    read: {
      readAt: 0,
      rpc: { ok: true, chainId: 1, blockNumber: 1, blockTimestamp: 1, blockSeenSince: 0 },
      round: { current: 7n, initialized: true, startBlock: 0n, length: 100n, blockNum },
      balanceWei: 10n ** 18n,
      gasPriceWei: 10n ** 9n,
      orchestrator: {
        serviceURI: "",
        registered: true,
        active: true,
        lastRewardRound,
        activationRound: 1n,
        deactivationRound: 0n,
        totalStake: 1n,
      },
    },
  };
}

const target: ChainSubject = {
  state: "target",
  target: {
    role: "orchestrator",
    network: "devnet",
    ethUrl: "http://127.0.0.1:8545",
    address: `0x${"1".repeat(40)}`,
  },
};
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe("OrchestratorDuties", () => {
  it("asks the node once past the deadline, then says the operator called it", async () => {
    const n = await node([{ status: 200, text: "" }]);
    const events = new Events();
    let woken = 0;
    const duties = new OrchestratorDuties({ events, wake: () => woken++, periodMs: 60_000 });
    const input = { orch: orch(), subject: target, pods: [pod], cliPort: n.port };
    const first = duties.observe("ns/o", { ...input, report: report(6n) });
    expect(first.conditions[0]?.[1]).toMatchObject({ status: "False", reason: "RewardPending" });
    await until(() => woken > 0);
    expect(n.calls).toEqual(["POST /reward"]);
    expect(events.seen.map((e) => e.reason)).toEqual(["RewardCalled"]);
    // The chain does not show it yet: no second call. A sentinel orchestrator on the same node,
    // observed after it, calls once; when that call is done, a second one for "o" would be too.
    duties.observe("ns/o", { ...input, report: report(6n) });
    const wokenBefore = woken;
    duties.observe("ns/sentinel", { ...input, orch: sentinel(), report: report(6n) });
    await until(() => woken > wokenBefore);
    expect(woken).toBe(wokenBefore + 1);
    expect(n.calls).toEqual(["POST /reward", "POST /reward"]);
    const shown = duties.observe("ns/o", { ...input, report: report(7n) });
    expect(shown.conditions[0]?.[1]).toMatchObject({ status: "True", reason: "RewardCalled" });
    expect(shown.reward).toMatchObject({ lastRound: 7, calledBy: "operator", lastAttemptRound: 7 });
    duties.stop();
  });

  it("records the node's answer to a failed call as RewardFailed, and keeps it across a restart", async () => {
    const n = await node([
      { status: 500, text: "Error calling reward: insufficient funds for gas * price + value" },
    ]);
    const events = new Events();
    let woken = 0;
    const duties = new OrchestratorDuties({ events, wake: () => woken++, periodMs: 60_000 });
    const input = { subject: target, pods: [pod], cliPort: n.port, report: report(6n) };
    duties.observe("ns/o", { ...input, orch: orch() });
    await until(() => woken > 0);
    const failed = duties.observe("ns/o", { ...input, orch: orch() });
    expect(failed.conditions[0]?.[1]).toMatchObject({ status: "False", reason: "RewardFailed" });
    expect(failed.conditions[0]?.[1].message).toContain("Error calling reward: insufficient funds");
    expect(failed.findings.map((f) => f.id)).toContain("RewardFailed");
    expect(events.seen.map((e) => [e.type, e.reason])).toEqual([["Warning", "RewardFailed"]]);
    duties.stop();

    // A new controller (restart) reads its memory from the status: not asked again before the retry period.
    let wokenAgain = 0;
    const again = new OrchestratorDuties({ events, wake: () => wokenAgain++, periodMs: 60_000 });
    const restarted = again.observe("ns/o", { ...input, orch: orch({ reward: failed.reward }) });
    expect(restarted.conditions[0]?.[1]).toMatchObject({ reason: "RewardFailed" });
    // A sentinel orchestrator with no memory, observed after it, is asked: once its call is done,
    // a call for "o" would be too.
    again.observe("ns/sentinel", { ...input, orch: sentinel() });
    await until(() => wokenAgain > 0);
    expect(wokenAgain).toBe(1);
    expect(n.calls).toHaveLength(2);
    again.stop();
  });

  it("leaves an offchain orchestrator alone and says so", () => {
    const duties = new OrchestratorDuties({ events: new Events(), wake: () => {} });
    const s = duties.observe("ns/o", {
      orch: orch(),
      subject: { state: "offchain" },
      report: undefined,
      pods: [pod],
      cliPort: 1,
    });
    expect(s.conditions[0]?.[1]).toMatchObject({ status: "Unknown", reason: "Offchain" });
  });
});
