// A paying node's funding guard (an on-chain Gateway's, or a RemoteSigner's: the key's holder), kept by asking its node (never holding its key): below a declared
// minimum deposit or reserve, POST /fundDepositAndReserve on its CLI port with the declared
// top-up, within a cap per 24 hours, once per shortfall. Beyond the cap nothing is sent and
// Funded=False says so with the numbers. Top-ups are recorded in status.funding, so a restart
// (or another replica taking the lead) neither forgets the cap nor answers a shortfall twice.
import type { KubeObject, ObjectKey } from "../../kube/index.ts";
import { ethText, type NodeChainCheck } from "../../node/chain/index.ts";
import { fundDepositAndReserve } from "../../node/client/index.ts";
import type { FundingSpec, FundingStatus } from "../../schema/duties.ts";
import type { Finding } from "../../schema/finding.ts";
import type { ChainSubject } from "../node-status/chain-status.ts";
import type { PodFacts } from "../node-status/facts.ts";
import type { Verdict } from "../runtime/index.ts";
import { DutyKeeper, type GasMemory } from "./duty-keeper.ts";
import { DAY_MS, type DoneTopUp, type FundingPlan, fundingDecision, weiOf } from "./funding-policy.ts";
import { balanceBefore, dutyFinding, measureGas, nodeAnswer, nodeCliUrl } from "./node-calls.ts";
import { walletShortfall } from "./wallet-policy.ts";

/** What the guard reads of the resource whose node pays (a Gateway, a RemoteSigner). */
export interface FundedResource extends KubeObject {
  spec: { funding?: FundingSpec | undefined };
  status?: { funding?: FundingStatus | undefined } | undefined;
}

export interface GatewayDutyInput {
  gateway: FundedResource;
  /** app.kubernetes.io/component of the pods that hold the key (default gateway). */
  component?: string;
  subject: ChainSubject;
  report: NodeChainCheck | undefined;
  pods: readonly PodFacts[];
  cliPort: number;
}

export interface GatewayDutyStatus {
  conditions: ["Funded", Verdict][];
  findings: Omit<Finding, "since">[];
  funding?: FundingStatus;
}

interface Memory extends GasMemory {
  topUps: (DoneTopUp & { shortfall: string })[];
  handled?: string;
  failure?: { atMs: number; error: string };
  /** The capped shortfall already told as an Event. */
  toldCapped?: string;
}

export class GatewayDuties extends DutyKeeper<Memory> {
  observe(key: ObjectKey, i: GatewayDutyInput): GatewayDutyStatus {
    const spec = i.gateway.spec.funding;
    if (!spec || i.subject.state !== "target") {
      this.forget(key);
      return { conditions: [], findings: [] };
    }
    const plan: FundingPlan = {
      minDeposit: weiOf(spec.minDeposit),
      minReserve: weiOf(spec.minReserve),
      topUpDeposit: weiOf(spec.topUpDeposit),
      topUpReserve: weiOf(spec.topUpReserve),
      maxPerDay: weiOf(spec.maxPerDay),
    };
    const m = this.#remember(key, i.gateway);
    const now = this.o.now();
    m.topUps = m.topUps.filter((t) => now - t.atMs < DAY_MS);
    const read = i.report?.read;
    measureGas(m, read);
    const g = read?.gateway;
    const conditions: GatewayDutyStatus["conditions"] = [];
    const findings: Omit<Finding, "since">[] = [];
    if (g) {
      const d = fundingDecision({
        plan,
        deposit: g.deposit,
        reserve: g.reserve,
        topUps: m.topUps,
        ...(m.handled ? { handled: m.handled } : {}),
        nowMs: now,
      });
      if (d.kind === "funded") {
        // The top-up landed (or was not needed): a new shortfall is a new one.
        delete m.handled;
        delete m.failure;
      } else if (d.kind === "capped") {
        conditions.push(["Funded", { status: "False", reason: "TopUpCapped", message: d.message }]);
        findings.push(dutyFinding("TopUpCapped", d.message));
        if (m.toldCapped !== d.shortfall) {
          m.toldCapped = d.shortfall;
          this.o.events.event(i.gateway, {
            type: "Warning",
            reason: "TopUpCapped",
            message: d.message,
            action: "FundDepositAndReserve",
          });
        }
      } else if (d.kind === "top-up") {
        const retryDue = !m.failure || now - m.failure.atMs >= this.o.periodMs;
        const node = nodeCliUrl(i.pods, i.component ?? "gateway", i.cliPort);
        if (!m.busy && retryDue && node) {
          void this.#topUp(key, i.gateway, node, d, balanceBefore(read, d.deposit + d.reserve));
        }
      }
      if (m.failure) {
        findings.push(
          dutyFinding(
            "TopUpFailed",
            `the top-up of ${shortfallOf(g.deposit, g.reserve)} failed: ${m.failure.error}; the operator tries again every ${Math.round(this.o.periodMs / 1000)} s`,
          ),
        );
      }
      if (d.kind !== "funded") this.revisits.after(key);
    }
    if (read?.balanceWei !== undefined && read.gasPriceWei !== undefined) {
      const short = walletShortfall({
        balanceWei: read.balanceWei,
        gasPriceWei: read.gasPriceWei,
        duty: "topUp",
        recentGas: m.recentGas,
        valueWei: plan.topUpDeposit + plan.topUpReserve,
      });
      if (short) findings.push(dutyFinding("WalletCannotPayDuty", short));
    }
    return { conditions, findings, funding: fundingStatus(m) };
  }

  #remember(key: ObjectKey, gateway: FundedResource): Memory {
    let m = this.memory.get(key);
    if (m) return m;
    const f = gateway.status?.funding;
    m = {
      busy: false,
      recentGas: [],
      topUps: (f?.topUps ?? []).map((t) => ({
        atMs: Date.parse(t.at),
        deposit: weiOf(t.deposit),
        reserve: weiOf(t.reserve),
        shortfall: t.shortfall,
      })),
      ...(f?.pending ? { handled: f.pending } : {}),
      ...(f?.lastError ? { failure: { atMs: 0, error: f.lastError } } : {}),
    };
    this.memory.set(key, m);
    return m;
  }

  async #topUp(
    key: ObjectKey,
    gateway: KubeObject,
    node: { pod: string; url: string },
    d: { shortfall: string; deposit: bigint; reserve: bigint; message: string },
    before: ReturnType<typeof balanceBefore>,
  ): Promise<void> {
    const m = this.memory.get(key)!;
    m.busy = true;
    try {
      await fundDepositAndReserve(
        node.url,
        { depositWei: d.deposit, reserveWei: d.reserve },
        { timeoutMs: this.o.callTimeoutMs },
      );
      m.topUps.push({ atMs: this.o.now(), deposit: d.deposit, reserve: d.reserve, shortfall: d.shortfall });
      m.handled = d.shortfall;
      delete m.failure;
      if (before) m.measure = { before, finishedAt: this.o.now() };
      this.o.events.event(gateway, {
        type: "Normal",
        reason: "ToppedUp",
        message: `${d.message}: done through pod ${node.pod} (POST /fundDepositAndReserve)`,
        action: "FundDepositAndReserve",
      });
    } catch (err) {
      m.failure = { atMs: this.o.now(), error: nodeAnswer(err) };
      this.o.events.event(gateway, {
        type: "Warning",
        reason: "TopUpFailed",
        message: `${d.message}: failed through pod ${node.pod}: ${m.failure.error}`,
        action: "FundDepositAndReserve",
      });
    } finally {
      m.busy = false;
      this.o.wake(key);
    }
  }
}

const shortfallOf = (deposit: bigint, reserve: bigint) =>
  `deposit ${ethText(deposit)} ETH, reserve ${ethText(reserve)} ETH`;

function fundingStatus(m: Memory): FundingStatus {
  return {
    ...(m.topUps.length
      ? {
          topUps: m.topUps.map((t) => ({
            at: new Date(t.atMs).toISOString(),
            deposit: ethText(t.deposit),
            reserve: ethText(t.reserve),
            shortfall: t.shortfall,
          })),
        }
      : {}),
    ...(m.failure ? { lastError: m.failure.error } : {}),
    ...(m.handled ? { pending: m.handled } : {}),
  };
}
