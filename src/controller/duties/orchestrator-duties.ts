// An orchestrator's on-chain duties, kept by asking its node (never holding its key): reward
// called every round (reward assurance) and the declared reward cut and fee share. On each visit
// the reconciler hands over the latest chain report; the pure policies decide; a call to the
// node's CLI port runs in the background (one at a time per resource), is told as one Event and
// recorded, and wakes the resource. The chain is read again by the chain watch, which is what
// the status believes.

import type { KubeObject, ObjectKey } from "../../kube/index.ts";
import type { NodeChainCheck } from "../../node/chain/index.ts";
import { callReward, setOrchestratorConfig } from "../../node/client/index.ts";
import type { OnchainStatus, RewardStatus } from "../../schema/duties.ts";
import type { Finding } from "../../schema/finding.ts";
import type { StoredOrchestrator } from "../../schema/orchestrator.ts";
import type { ChainSubject } from "../node-status/chain-status.ts";
import type { PodFacts } from "../node-status/facts.ts";
import type { Verdict } from "../runtime/index.ts";
import { DutyKeeper, type GasMemory } from "./duty-keeper.ts";
import { balanceBefore, dutyFinding, measureGas, nodeAnswer, nodeCliUrl } from "./node-calls.ts";
import { type RewardAttempt, rewardDecision } from "./reward-policy.ts";
import { settingsDecision } from "./settings-policy.ts";
import { walletShortfall } from "./wallet-policy.ts";

export type { DutyOptions } from "./duty-keeper.ts";

export interface OrchestratorDutyInput {
  orch: StoredOrchestrator;
  subject: ChainSubject;
  report: NodeChainCheck | undefined;
  pods: readonly PodFacts[];
  cliPort: number;
}

export interface OrchestratorDutyStatus {
  conditions: ["RewardCurrent", Verdict][];
  findings: Omit<Finding, "since">[];
  reward?: RewardStatus;
  onchain?: OnchainStatus;
}

interface Memory extends GasMemory {
  attempt?: RewardAttempt;
  pendingRound?: { round: bigint; cause: string };
  lastSetRound?: bigint;
  setError?: string;
}

export class OrchestratorDuties extends DutyKeeper<Memory> {
  observe(key: ObjectKey, i: OrchestratorDutyInput): OrchestratorDutyStatus {
    const { orch, subject } = i;
    if (subject.state === "offchain") {
      this.forget(key);
      return leave("Offchain", "offchain: there is no reward to call and nothing on chain to keep");
    }
    if (subject.state === "unknown")
      return { conditions: [["RewardCurrent", subject.verdict]], findings: [] };
    const m = this.#remember(key, orch);
    const now = this.o.now();
    const read = i.report?.read;
    const o = read?.orchestrator;
    const round = read?.round;
    const spec = orch.spec;
    const reward = spec.reward !== false;
    measureGas(m, read);
    const decision = rewardDecision({
      enabled: spec.rewardAssurance?.enabled ?? reward,
      reward,
      ...(o && round
        ? {
            chain: {
              round: round.current,
              active: o.active,
              lastRewardRound: o.lastRewardRound,
              elapsed: elapsedShare(round),
              ...(read.gasPriceWei !== undefined ? { gasPriceWei: read.gasPriceWei } : {}),
            },
          }
        : {}),
      deadline: spec.rewardAssurance?.deadline ?? 0.8,
      ...(spec.rewardAssurance?.maxGasPriceGwei !== undefined
        ? { maxGasPriceWei: BigInt(Math.round(spec.rewardAssurance.maxGasPriceGwei * 1e9)) }
        : {}),
      ...(m.attempt ? { lastAttempt: m.attempt } : {}),
      ...(m.pendingRound ? { pendingRound: m.pendingRound } : {}),
      nowMs: now,
      retryAfterMs: this.o.periodMs,
    });
    if (decision.pending) m.pendingRound = decision.pending;
    const findings: Omit<Finding, "since">[] = [];
    if (decision.finding) findings.push(dutyFinding(decision.finding.id, decision.finding.message));
    const node = nodeCliUrl(i.pods, "orchestrator", i.cliPort);
    if (decision.call && round && !m.busy) {
      if (node) void this.#callReward(key, orch, node, round.current, balanceBefore(read));
      else decision.verdict.message += "; no Ready node pod to ask yet";
    }
    // Settings: only once the chain says what they are.
    if (o && round && o.rewardCut !== undefined && o.feeShare !== undefined && spec.onchain) {
      const s = settingsDecision({
        chain: { rewardCut: o.rewardCut, feeShare: o.feeShare },
        spec: { ...spec.onchain, manage: spec.onchain.manage ?? false },
        round: round.current,
        ...(m.lastSetRound !== undefined ? { lastSetRound: m.lastSetRound } : {}),
        ...(m.setError ? { lastError: m.setError } : {}),
        awaitsReward: o.active && o.lastRewardRound < round.current,
      });
      if (s.kind !== "match") findings.push(dutyFinding("OnchainSettingsDrift", s.message));
      if (s.kind === "set" && !m.busy && node) void this.#setSettings(key, orch, node, round.current, s);
    }
    // A wallet that cannot pay the next reward call, projected at today's gas price.
    if (reward && o?.active && read?.balanceWei !== undefined && read.gasPriceWei !== undefined) {
      const short = walletShortfall({
        balanceWei: read.balanceWei,
        gasPriceWei: read.gasPriceWei,
        duty: "reward",
        recentGas: m.recentGas,
      });
      if (short) findings.push(dutyFinding("WalletCannotPayDuty", short));
    }
    // Before the deadline nothing is urgent: look again every few periods (a round is hours long).
    if (decision.verdict.reason === "AwaitingNode") this.revisits.after(key, 5 * this.o.periodMs);
    else if (decision.verdict.status !== "True" || findings.length) this.revisits.after(key);
    return {
      conditions: [["RewardCurrent", decision.verdict]],
      findings,
      reward: rewardStatus(o?.lastRewardRound, decision.calledBy, m.attempt),
      ...(m.lastSetRound !== undefined || m.setError
        ? {
            onchain: {
              ...(m.lastSetRound !== undefined ? { lastSetRound: Number(m.lastSetRound) } : {}),
              ...(m.setError ? { lastError: m.setError } : {}),
            },
          }
        : {}),
    };
  }

  /** This resource's memory, seeded from its status after a restart (or another replica's lead). */
  #remember(key: ObjectKey, orch: StoredOrchestrator): Memory {
    let m = this.memory.get(key);
    if (m) return m;
    const r = orch.status?.reward;
    const s = orch.status?.onchain;
    m = {
      busy: false,
      recentGas: [],
      ...(r?.lastAttemptRound !== undefined
        ? {
            attempt: {
              round: BigInt(r.lastAttemptRound),
              atMs: r.lastAttemptAt ? Date.parse(r.lastAttemptAt) : 0,
              ...(r.lastError ? { error: r.lastError } : {}),
            },
          }
        : {}),
      ...(s?.lastSetRound !== undefined ? { lastSetRound: BigInt(s.lastSetRound) } : {}),
      ...(s?.lastError ? { setError: s.lastError } : {}),
    };
    this.memory.set(key, m);
    return m;
  }

  async #callReward(
    key: ObjectKey,
    orch: KubeObject,
    node: { pod: string; url: string },
    round: bigint,
    before: ReturnType<typeof balanceBefore>,
  ) {
    const m = this.memory.get(key)!;
    m.busy = true;
    const atMs = this.o.now();
    try {
      await callReward(node.url, { timeoutMs: this.o.callTimeoutMs });
      m.attempt = { round, atMs };
      if (before) m.measure = { before, finishedAt: this.o.now() };
      this.o.events.event(orch, {
        type: "Normal",
        reason: "RewardCalled",
        message: `reward was not called by the deadline in round ${round}: the operator asked the node (POST /reward on pod ${node.pod}) and the call succeeded`,
        action: "CallReward",
      });
    } catch (err) {
      const answer = nodeAnswer(err);
      m.attempt = { round, atMs, error: answer };
      this.o.events.event(orch, {
        type: "Warning",
        reason: "RewardFailed",
        message: `reward call in round ${round} through pod ${node.pod} failed: ${answer}`,
        action: "CallReward",
      });
    } finally {
      m.busy = false;
      this.o.wake(key);
    }
  }

  async #setSettings(
    key: ObjectKey,
    orch: KubeObject,
    node: { pod: string; url: string },
    round: bigint,
    s: { rewardCut: number; feeShare: number; message: string },
  ) {
    const m = this.memory.get(key)!;
    m.busy = true;
    m.lastSetRound = round;
    try {
      await setOrchestratorConfig(
        node.url,
        { blockRewardCut: s.rewardCut, feeShare: s.feeShare },
        { timeoutMs: this.o.callTimeoutMs },
      );
      delete m.setError;
      this.o.events.event(orch, {
        type: "Normal",
        reason: "OnchainSettingsSet",
        message: `${s.message}: set to reward cut ${s.rewardCut} %, fee share ${s.feeShare} % in round ${round} (pod ${node.pod})`,
        action: "SetOrchestratorConfig",
      });
    } catch (err) {
      m.setError = nodeAnswer(err);
      this.o.events.event(orch, {
        type: "Warning",
        reason: "OnchainSettingsNotSet",
        message: `could not set reward cut ${s.rewardCut} %, fee share ${s.feeShare} % in round ${round} through pod ${node.pod}: ${m.setError}; next try next round`,
        action: "SetOrchestratorConfig",
      });
    } finally {
      m.busy = false;
      this.o.wake(key);
    }
  }
}

const leave = (reason: string, message: string): OrchestratorDutyStatus => ({
  conditions: [["RewardCurrent", { status: "Unknown", reason, message }]],
  findings: [],
});

/** Share of the round gone by, from the RoundsManager's block count. */
export function elapsedShare(round: { startBlock: bigint; length: bigint; blockNum: bigint }): number {
  if (round.length <= 0n) return 0;
  const into = round.blockNum > round.startBlock ? round.blockNum - round.startBlock : 0n;
  return Math.min(1, Number(into) / Number(round.length));
}

function rewardStatus(
  lastRewardRound: bigint | undefined,
  calledBy: "node" | "operator" | undefined,
  attempt: RewardAttempt | undefined,
): RewardStatus {
  return {
    ...(lastRewardRound !== undefined ? { lastRound: Number(lastRewardRound) } : {}),
    ...(calledBy ? { calledBy } : {}),
    ...(attempt
      ? {
          lastAttemptRound: Number(attempt.round),
          lastAttemptAt: new Date(attempt.atMs).toISOString(),
          ...(attempt.error ? { lastError: attempt.error } : {}),
        }
      : {}),
  };
}
