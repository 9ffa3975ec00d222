// `livepeer-operator doctor`: what the chain says about one node, from a laptop - the same reads
// and checks the controller runs on every Orchestrator and Gateway (src/node/chain).
import path from "node:path";
import { parseArgs } from "node:util";
import { getAddress, isAddress, parseEther } from "ethers";
import { readDeployments } from "../../devnet/deployment-record.ts";
import {
  CHAIN_HEALTH_FINDINGS,
  type ChainCondition,
  type ChainPolicy,
  ChainReads,
  type ChainStatusFacts,
  checkNodeChain,
  DEFAULT_CHAIN_POLICY,
  durationText,
  type NodeChainCheck,
  type NodeChainTarget,
  parseRpcUrl,
  RpcUrlError,
} from "../../node/chain/index.ts";
import type { Finding } from "../../node/diagnosis/types.ts";
import { type Command, UsageError } from "../command.ts";

const usage = `Usage: livepeer-operator doctor --eth-url URL --address ADDRESS [options]

Reads what the chain says about one Livepeer node - its RPC, registration, active set, reward
and funds - and explains what is wrong and what to do, as the operator's controller reports it
on Orchestrators and Gateways.

  --eth-url URL          the node's -ethUrl (chain JSON-RPC over http(s); never printed in full)
  --address ADDRESS      the node's account (-ethAcctAddr)
  --role ROLE            orchestrator or gateway (default: told from the chain - a registered
                         transcoder is an orchestrator, an account with a deposit a gateway)
  --network NAME         the node's -network (default: devnet with --controller or --deployments,
                         else arbitrum-one-mainnet)
  --controller ADDRESS   the protocol Controller (-ethController), for networks without a built-in one
  --deployments DIR      a devnet's deployments/devnet/: its Controller and chain id
  --service-addr H:P     orchestrators: the host:port the node is exposed at (-serviceAddr), to
                         compare with the on-chain service URI
  --reward BOOL          orchestrators: the node's -reward (default: the node's default, on once
                         registered); with false, a missing reward call is not reported
  --min-balance ETH      wallet balance below which gas runs short (default 0.02)
  --stale-after SECONDS  the chain's head is stale when older than this (default ${DEFAULT_CHAIN_POLICY.staleAfterMs / 1000})
  --reward-grace SHARE   share of a round the node gets to call reward before it is reported
                         (default ${DEFAULT_CHAIN_POLICY.rewardGraceFraction})
  --block-time SECONDS   seconds per round block, for the time left in a round (named networks: 12)
  --timeout SECONDS      per RPC request (default 5)
  --json                 print {target, conditions, findings, facts} as JSON

Exit status: 1 if an error finding was seen (the node does not serve), 0 otherwise, 2 for usage
errors.

Examples:
  livepeer-operator doctor --eth-url https://arb1.arbitrum.io/rpc --address 0x... --service-addr orch.example.com:8935
  livepeer-operator doctor --eth-url http://127.0.0.1:8545 --deployments deployments/devnet --address 0x... --role gateway`;

const OPTIONS = {
  "eth-url": { type: "string" },
  address: { type: "string" },
  role: { type: "string" },
  network: { type: "string" },
  controller: { type: "string" },
  deployments: { type: "string" },
  "service-addr": { type: "string" },
  reward: { type: "string" },
  "min-balance": { type: "string" },
  "stale-after": { type: "string" },
  "reward-grace": { type: "string" },
  "block-time": { type: "string" },
  timeout: { type: "string" },
  json: { type: "boolean", default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>["values"];

function positive(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0)) {
    throw new UsageError(`--${option}: '${text}' is not a positive number of seconds`);
  }
  return n;
}

interface Plan {
  target: Omit<NodeChainTarget, "role">;
  role?: NodeChainTarget["role"];
  policy: ChainPolicy;
  timeoutMs: number;
}

function plan(v: Values): Plan {
  if (!v["eth-url"]) throw new UsageError("give the node's chain RPC with --eth-url URL");
  if (!v.address) throw new UsageError("give the node's account with --address 0x...");
  if (!isAddress(v.address))
    throw new UsageError(`--address '${v.address}' is not an account address: 0x followed by 40 hex digits`);
  if (v.role !== undefined && v.role !== "orchestrator" && v.role !== "gateway") {
    throw new UsageError(`--role '${v.role}': give orchestrator or gateway`);
  }
  if (v.controller && v.deployments) throw new UsageError("give --controller or --deployments, not both");
  if (v.controller && !isAddress(v.controller))
    throw new UsageError(`--controller '${v.controller}' is not an address`);
  let controller = v.controller;
  let chainId: number | undefined;
  if (v.deployments) {
    const dir = path.resolve(v.deployments);
    const deployments = readDeployments(dir);
    const recorded = deployments?.contracts.Controller?.address;
    if (!recorded) {
      throw new UsageError(
        `${dir} has no Controller.json: give a devnet's deployments/devnet/ or --controller`,
      );
    }
    controller = recorded;
    chainId = deployments?.chainId;
  }
  const network = v.network ?? (controller ? "devnet" : "arbitrum-one-mainnet");
  if (network === "offchain")
    throw new UsageError("an offchain node has no chain to check: give its --network");
  try {
    parseRpcUrl(v["eth-url"], { devnet: network === "devnet" });
  } catch (err) {
    if (err instanceof RpcUrlError) throw new UsageError(`--eth-url: ${err.message}`);
    throw err;
  }
  if (v.reward !== undefined && v.reward !== "true" && v.reward !== "false") {
    throw new UsageError(`--reward '${v.reward}': give true or false`);
  }
  let minBalanceWei = DEFAULT_CHAIN_POLICY.minBalanceWei;
  if (v["min-balance"] !== undefined) {
    if (!/^\d+(\.\d{1,18})?$/.test(v["min-balance"])) {
      throw new UsageError(`--min-balance '${v["min-balance"]}' is not an amount of ETH like 0.05`);
    }
    minBalanceWei = parseEther(v["min-balance"]);
  }
  const grace =
    v["reward-grace"] === undefined ? DEFAULT_CHAIN_POLICY.rewardGraceFraction : Number(v["reward-grace"]);
  if (!(grace >= 0 && grace <= 1)) {
    throw new UsageError(`--reward-grace '${v["reward-grace"]}' is not a share of a round between 0 and 1`);
  }
  const staleAfter = positive(v["stale-after"], "stale-after");
  return {
    target: {
      network,
      ethUrl: v["eth-url"],
      address: getAddress(v.address),
      ...(controller ? { controller } : {}),
      ...(chainId !== undefined ? { chainId } : {}),
      ...(v["service-addr"] ? { serviceAddr: v["service-addr"] } : {}),
      ...(v.reward !== undefined ? { reward: v.reward === "true" } : {}),
      ...(v["block-time"] !== undefined
        ? { secondsPerRoundBlock: positive(v["block-time"], "block-time") }
        : {}),
    },
    role: v.role as NodeChainTarget["role"] | undefined,
    policy: {
      staleAfterMs: staleAfter === undefined ? DEFAULT_CHAIN_POLICY.staleAfterMs : staleAfter * 1000,
      minBalanceWei,
      rewardGraceFraction: grace,
    },
    timeoutMs: (positive(v.timeout, "timeout") ?? 5) * 1000,
  };
}

interface Outcome {
  role: NodeChainTarget["role"] | "unknown";
  /** How the role was decided, when it was not given. */
  roleFrom?: string;
  check: NodeChainCheck;
}

/** Checks with the given role, or tells it from the chain: a transcoder is an orchestrator, a sender a gateway. */
async function run(p: Plan): Promise<Outcome> {
  const reads = new ChainReads({ timeoutMs: p.timeoutMs });
  if (p.role)
    return { role: p.role, check: await checkNodeChain(reads, { ...p.target, role: p.role }, p.policy) };
  const asOrchestrator = await checkNodeChain(reads, { ...p.target, role: "orchestrator" }, p.policy);
  const o = asOrchestrator.read?.orchestrator;
  if (!o) {
    // Nothing to tell the role by: only what the chain itself says.
    const check = {
      ...asOrchestrator,
      conditions: asOrchestrator.conditions.filter((c) => c.type === "ChainHealthy"),
      findings: asOrchestrator.findings.filter((f) => CHAIN_HEALTH_FINDINGS.has(f.id)),
    };
    return { role: "unknown", roleFrom: "the chain could not be read, so the role is not known", check };
  }
  if (o.serviceURI !== "" || o.registered || o.active) {
    return { role: "orchestrator", roleFrom: "a transcoder registration on chain", check: asOrchestrator };
  }
  const asGateway = await checkNodeChain(reads, { ...p.target, role: "gateway" }, p.policy);
  const g = asGateway.read?.gateway;
  if (g && (g.deposit > 0n || g.reserve > 0n || g.withdrawRound > 0n)) {
    return { role: "gateway", roleFrom: "a TicketBroker deposit on chain", check: asGateway };
  }
  throw new UsageError(
    `${p.target.address} has no transcoder registration and no deposit on chain, so its role cannot be told: give --role orchestrator or --role gateway`,
  );
}

function conditionLine(c: ChainCondition, width: number): string {
  return `  ${c.type.padEnd(13)} ${c.status.padEnd(8)} ${c.reason.padEnd(width)}  ${c.message}`;
}

function factsLine(f: ChainStatusFacts): string {
  const parts: string[] = [];
  if (f.chainId !== undefined) parts.push(`chain ${f.chainId}, block ${f.blockNumber}`);
  if (f.currentRound !== undefined) {
    const left =
      f.roundSecondsLeft !== undefined
        ? `${f.roundBlocksLeft} blocks, about ${durationText(f.roundSecondsLeft)} left`
        : `${f.roundBlocksLeft} blocks left`;
    parts.push(`round ${f.currentRound} (${left})`);
  }
  if (f.serviceURI !== undefined) parts.push(`service URI ${f.serviceURI || "(none)"}`);
  if (f.activeSet !== undefined) parts.push(f.activeSet ? "in the active set" : "NOT in the active set");
  if (f.lastRewardRound !== undefined) parts.push(`last reward round ${f.lastRewardRound}`);
  if (f.deposit !== undefined) parts.push(`deposit ${f.deposit} ETH, reserve ${f.reserve} ETH`);
  if (f.balance !== undefined) parts.push(`wallet ${f.balance} ETH`);
  return parts.join(", ");
}

function findingText(f: Finding): string {
  return [
    `${f.severity.toUpperCase().padEnd(8)} ${f.id}`,
    `  Found:    ${f.message}`,
    `  Meaning:  ${f.meaning}`,
    `  Action:   ${f.action}`,
  ].join("\n");
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function text(p: Plan, o: Outcome): string {
  const shown = parseRpcUrl(p.target.ethUrl, { devnet: p.target.network === "devnet" }).shown;
  const who = o.role === "unknown" ? "node" : o.role;
  const lines = [
    `Chain check of ${who} ${p.target.address} on ${p.target.network} via ${shown}${o.roleFrom ? ` (role: ${o.roleFrom})` : ""}`,
    "",
  ];
  const width = Math.max(...o.check.conditions.map((c) => c.reason.length));
  lines.push(...o.check.conditions.map((c) => conditionLine(c, width)));
  const facts = factsLine(o.check.facts);
  if (facts) lines.push("", `Facts: ${facts}`);
  for (const f of o.check.findings) lines.push("", findingText(f));
  const count = (s: Finding["severity"]) => o.check.findings.filter((f) => f.severity === s).length;
  lines.push("", `${plural(count("error"), "error")}, ${plural(count("warning"), "warning")}.`);
  return `${lines.join("\n")}\n`;
}

function json(p: Plan, o: Outcome): string {
  const shown = parseRpcUrl(p.target.ethUrl, { devnet: p.target.network === "devnet" }).shown;
  return `${JSON.stringify(
    {
      target: { ...p.target, ethUrl: shown, role: o.role },
      conditions: o.check.conditions,
      findings: o.check.findings,
      facts: o.check.facts,
    },
    null,
    2,
  )}\n`;
}

export const command: Command = {
  name: "doctor",
  summary: "What the chain says about a node: RPC, registration, active set, reward, funds.",
  usage,
  async run(args) {
    let values: Values;
    try {
      ({ values } = parseArgs({ args, options: OPTIONS, strict: true }));
    } catch (err) {
      throw new UsageError(`${(err as Error).message}\n\n${usage}`);
    }
    const p = plan(values);
    const outcome = await run(p);
    process.stdout.write(values.json ? json(p, outcome) : text(p, outcome));
    return outcome.check.findings.some((f) => f.severity === "error") ? 1 : 0;
  },
};
