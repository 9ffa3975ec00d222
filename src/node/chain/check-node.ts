// One node's chain check, end to end: the URL parsed, the facts read through the shared
// ChainReads, the facts judged. What the controller calls on every doctor visit and what
// `livepeer-operator doctor` runs once.

import { DEVNET } from "../config/networks.ts";
import type { ChainReads } from "./chain-reads.ts";
import type { NodeChainFacts, NodeChainTarget } from "./facts.ts";
import { readNodeChainFacts } from "./read-facts.ts";
import {
  type ChainPolicy,
  type ChainReport,
  DEFAULT_CHAIN_POLICY,
  evaluateNodeChain,
  offchainReport,
} from "./report.ts";
import { parseRpcUrl, RpcUrlError } from "./rpc-url.ts";

export interface NodeChainCheck extends ChainReport {
  /** What was read (undefined offchain or when -ethUrl is not a URL). */
  read?: NodeChainFacts;
}

export async function checkNodeChain(
  reads: ChainReads,
  target: NodeChainTarget,
  policy: ChainPolicy = DEFAULT_CHAIN_POLICY,
): Promise<NodeChainCheck> {
  if (target.network === "offchain") return offchainReport(target.role);
  let rpc: ReturnType<typeof parseRpcUrl>;
  try {
    rpc = parseRpcUrl(target.ethUrl, { devnet: target.network === DEVNET });
  } catch (err) {
    if (!(err instanceof RpcUrlError)) throw err;
    return unusableUrl(target, err.message);
  }
  const read = await readNodeChainFacts(reads, target, rpc);
  return { ...evaluateNodeChain(target, rpc, read, policy, reads.now()), read };
}

function unusableUrl(target: NodeChainTarget, message: string): NodeChainCheck {
  const report = offchainReport(target.role);
  return {
    ...report,
    conditions: report.conditions.map((c) =>
      c.type === "ChainHealthy"
        ? { type: c.type, status: "False", reason: "RPCUnreachable", message, severity: "error" }
        : {
            type: c.type,
            status: "Unknown",
            reason: "ChainNotRead",
            message: "the chain could not be read (see ChainHealthy)",
          },
    ),
  };
}
