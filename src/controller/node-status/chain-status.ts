// What a node resource's status says about the chain (pure): which target its chain is checked
// as (from the flags the node runs with), and the chain report as conditions (ChainHealthy, and
// Registered for orchestrators or Funded for gateways), findings and status facts.
import {
  type ChainCondition,
  type ChainStatusFacts,
  type NodeChainCheck,
  type NodeChainTarget,
  type NodeRole,
  offchainReport,
} from "../../node/chain/index.ts";
import { type FlagValues, flagBool, flagText, isGiven } from "../../node/config/index.ts";
import type { Finding } from "../../schema/finding.ts";
import type { DevnetResolution } from "../devnet/deployment-config-map.ts";
import type { Verdict } from "../runtime/index.ts";

export type ChainSubject =
  | { state: "offchain" }
  /** Not checkable yet: every chain condition is Unknown with this verdict. */
  | { state: "unknown"; verdict: Verdict }
  | { state: "target"; target: NodeChainTarget };

export interface ChainSubjectInput {
  role: NodeRole;
  /** The node's flags as planned (-network, -ethUrl, -ethAcctAddr, -ethController, ...). */
  flags: FlagValues;
  devnet: DevnetResolution;
}

export function chainSubject({ role, flags, devnet }: ChainSubjectInput): ChainSubject {
  const network = flagText(flags, "network") ?? "offchain";
  if (network === "offchain") return { state: "offchain" };
  if (devnet.state === "unresolved") {
    return {
      state: "unknown",
      verdict: { status: "Unknown", reason: devnet.reason, message: devnet.message },
    };
  }
  const ethUrl = flagText(flags, "ethUrl");
  if (!ethUrl) {
    return unknown(
      "NoChainURL",
      "the node has no chain URL: set spec.ethUrl, or name a devnet deployment in spec.devnet",
    );
  }
  const address = flagText(flags, "ethAcctAddr");
  if (!address) {
    return unknown(
      "NoAccountAddress",
      "spec.ethAcctAddr is not set, and the chain is read for the node's account: set it to the keystore's address (0x followed by 40 hex digits)",
    );
  }
  const controller = flagText(flags, "ethController");
  const serviceAddr = flagText(flags, "serviceAddr");
  const chainId = devnet.state === "resolved" ? devnet.chainId : undefined;
  return {
    state: "target",
    target: {
      role,
      network,
      ethUrl,
      address,
      ...(controller ? { controller } : {}),
      ...(chainId !== undefined ? { chainId } : {}),
      ...(role === "orchestrator" && serviceAddr ? { serviceAddr } : {}),
      ...(role === "orchestrator" && isGiven(flags, "reward") ? { reward: flagBool(flags, "reward") } : {}),
    },
  };
}

const unknown = (reason: string, message: string): ChainSubject => ({
  state: "unknown",
  verdict: { status: "Unknown", reason, message },
});

/** The facts of the chain a status shows. */
export type ChainFacts = Pick<
  ChainStatusFacts,
  "serviceURI" | "deposit" | "reserve" | "balance" | "activeSet" | "lastRewardRound"
>;

export interface ChainStatus {
  conditions: [type: ChainCondition["type"], verdict: Verdict][];
  findings: Omit<Finding, "since">[];
  facts: ChainFacts;
}

/**
 * The chain's part of a status: set on every visit, Unknown until the first check ends (a True or
 * False already in the status stands until then: `unread`).
 */
export function chainStatus(
  role: NodeRole,
  subject: ChainSubject,
  report: NodeChainCheck | undefined,
): ChainStatus {
  const types = ["ChainHealthy", role === "orchestrator" ? "Registered" : "Funded"] as const;
  if (subject.state === "offchain") return fromReport(offchainReport(role));
  if (subject.state === "unknown") {
    return { conditions: types.map((t) => [t, subject.verdict]), findings: [], facts: {} };
  }
  if (!report) {
    const verdict: Verdict = {
      status: "Unknown",
      reason: "Checking",
      message: `the chain has not been read yet for ${subject.target.address}`,
      unread: true,
    };
    return { conditions: types.map((t) => [t, verdict]), findings: [], facts: {} };
  }
  return fromReport(report);
}

function fromReport(report: Pick<NodeChainCheck, "conditions" | "findings" | "facts">): ChainStatus {
  const { serviceURI, deposit, reserve, balance, activeSet, lastRewardRound } = report.facts;
  const facts: ChainFacts = { serviceURI, deposit, reserve, balance, activeSet, lastRewardRound };
  for (const k of Object.keys(facts) as (keyof ChainFacts)[]) if (facts[k] === undefined) delete facts[k];
  return {
    conditions: report.conditions.map((c) => [
      c.type,
      { status: c.status, reason: c.reason, message: c.message },
    ]),
    findings: report.findings.map((f) => ({ id: f.id, severity: f.severity, message: f.message })),
    facts,
  };
}
