// ChainHealthy: the RPC answers (a hex block number), on the network's chain, with the protocol
// at the Controller, its head moving, and over https when it is remote. Each problem is a finding;
// the condition's reason is the worst one, its message names them all.
//
// Severity: an unreachable RPC, another chain or no protocol stop the node on chain (it cannot
// start, pay or redeem): errors. A stale head (tickets expire, rounds seem to stand still) and a
// clear-text remote RPC degrade or endanger a node that still serves: warnings.
import type { Finding } from "../../diagnosis/types.ts";
import { type CheckResult, chainFinding } from "../chain-finding.ts";
import type { NodeChainFacts } from "../facts.ts";
import type { RpcUrl } from "../rpc-url.ts";
import { durationText } from "./round-time.ts";

/** The catalog ids ChainHealthy's problems are reported under. */
export const CHAIN_HEALTH_FINDINGS: ReadonlySet<string> = new Set([
  "EthereumUnreachable",
  "ChainIdMismatch",
  "ProtocolNotFound",
  "RPCStale",
  "InsecureRemoteRPC",
]);

export interface ChainHealthInput {
  rpc: RpcUrl;
  facts: NodeChainFacts;
  /** The chain id the network requires; undefined: not checked. */
  expectedChainId?: number;
  /** The head is stale when older than this, or unchanged for this long. */
  staleAfterMs: number;
  /** Now, ms since the epoch. */
  now: number;
}

interface Problem {
  reason: string;
  finding: Finding;
}

export function chainHealth(input: ChainHealthInput): CheckResult {
  const { rpc, facts } = input;
  const problems: Problem[] = [];
  const add = (reason: string, id: string, message: string) =>
    problems.push({ reason, finding: chainFinding(id, message) });
  if (!facts.rpc.ok) {
    if (facts.rpc.kind === "not-read") {
      return {
        condition: {
          type: "ChainHealthy",
          status: "Unknown",
          reason: "NotChecked",
          message: `${facts.rpc.message}; give an https:// URL to have the chain checked`,
        },
        findings: insecure(rpc) ? [chainFinding("InsecureRemoteRPC", insecureMessage(rpc))] : [],
      };
    }
    add("RPCUnreachable", "EthereumUnreachable", `the chain RPC does not answer: ${facts.rpc.message}`);
  } else {
    const { chainId, blockNumber } = facts.rpc;
    if (input.expectedChainId !== undefined && chainId !== input.expectedChainId) {
      add(
        "ChainIdMismatch",
        "ChainIdMismatch",
        `${rpc.shown} is chain ${chainId}, but the network is chain ${input.expectedChainId}: point -ethUrl at that network's RPC`,
      );
    } else if (facts.protocol && !facts.protocol.ok) {
      add(
        "ProtocolNotFound",
        "ProtocolNotFound",
        `${facts.protocol.message} (chain ${chainId} at ${rpc.shown})`,
      );
    }
    const stale = staleness(facts, input.staleAfterMs, input.now);
    if (stale) add("RPCStale", "RPCStale", `${rpc.shown}: block ${blockNumber} ${stale}`);
  }
  if (insecure(rpc)) add("InsecureRemoteRPC", "InsecureRemoteRPC", insecureMessage(rpc));
  if (problems.length === 0 && facts.rpc.ok) {
    const { chainId } = facts.rpc;
    return {
      condition: {
        type: "ChainHealthy",
        status: "True",
        reason: "RPCHealthy",
        // No block number or age here: they change on every check, and a status message that
        // changes is a status write (1,000 resources: 17 writes a second for nothing).
        message: `chain ${chainId} at ${rpc.shown}: the head advances (its latest block is under ${durationText(input.staleAfterMs / 1000)} old)${facts.protocol?.ok ? `, Controller ${facts.protocol.controller}` : ""}`,
      },
      findings: [],
    };
  }
  const worst = problems.find((p) => p.finding.severity === "error") ?? problems[0]!;
  return {
    condition: {
      type: "ChainHealthy",
      status: "False",
      reason: worst.reason,
      message: problems.map((p) => p.finding.message).join("; "),
      severity: worst.finding.severity === "error" ? "error" : "warning",
    },
    findings: problems.map((p) => p.finding),
  };
}

/** Why the head looks stale, or undefined. */
function staleness(facts: NodeChainFacts, staleAfterMs: number, now: number): string | undefined {
  if (!facts.rpc.ok) return undefined;
  // Times, not ages: the message stays the same from check to check while the head stands still.
  const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  const limit = `stale after ${durationText(staleAfterMs / 1000)}`;
  const minedMs = facts.rpc.blockTimestamp * 1000;
  if (now - minedMs > staleAfterMs)
    return `was mined at ${at(minedMs)} (${limit}): the chain is not advancing there`;
  if (now - facts.rpc.blockSeenSince > staleAfterMs) {
    return `has been the head since ${at(facts.rpc.blockSeenSince)} (${limit}): the chain is not advancing there`;
  }
  return undefined;
}

function insecure(rpc: RpcUrl): boolean {
  return rpc.remote && !rpc.secure;
}

function insecureMessage(rpc: RpcUrl): string {
  return `-ethUrl ${rpc.shown} is a remote endpoint without ${rpc.scheme === "ws" ? "wss" : "https"}: use the provider's ${rpc.scheme === "ws" ? "wss" : "https"}:// URL`;
}
