import { parseArgs } from "node:util";
import { formatEther } from "ethers";
import { AmountError, negativeAmountOption, parseEthAmount } from "../../devnet/amounts.ts";
import {
  type AccountPlan,
  DEFAULT_ACCOUNT_PLAN,
  DEFAULT_CHAIN_PORT,
  DEVNET_PROTOCOL_PARAMS,
  type DevnetState,
  devnetDown,
  devnetUp,
  formatDevnetStatus,
  readDevnetStatus,
} from "../../devnet/index.ts";
import { isAlive } from "../../devnet/processes.ts";
import { type Command, UsageError } from "../command.ts";
import {
  DEVNET_ACTIONS,
  DEVNET_ACTIONS_USAGE,
  type DevnetAction,
  runDevnetAction,
} from "../devnet-actions.ts";

const usage = `Usage: livepeer-operator devnet up|down|status|configmap [options]
       livepeer-operator devnet reward|drain|unbond|service-uri|round|pause|resume [options]

  up      start a local dev chain (hardhat node on 127.0.0.1 only), deploy the Livepeer protocol
          from the npm artifacts (@livepeer/sdk), set up orchestrator and gateway accounts, and
          return once all is ready, leaving the chain running in the background. A second 'up'
          finds the running devnet and reuses it (and says so).
  down    stop the chain (and round ticker) 'up' started and wait for them to exit (keeps
          deployments/devnet/ and .devnet/ unless --purge; the next 'up' redeploys to the same
          addresses)
  status  chain id and height, current round, contract addresses, and each account's ETH
          balance, bonded LPT, active-transcoder flag, service URI, deposit and reserve
          (exit 1 when no devnet runs)
  configmap  print the deployment (deployments/devnet/) as the ConfigMap an Orchestrator's
          spec.devnet names: every <Contract>.json, .chainId and ethUrl, the chain's JSON-RPC URL
          as the node pods reach it. Apply it with kubectl apply --server-side -f - (the ABIs are
          too large for a client-side apply's annotation).
${DEVNET_ACTIONS_USAGE}

Options:
  --dir DIR           base directory for deployments/devnet/ and .devnet/ (default: .)
  --port N            port on 127.0.0.1 for a new chain (default ${DEFAULT_CHAIN_PORT}; 0 = any free port)
  --foreground        up: stay attached and stop the chain on Ctrl-C
  --block-interval S  up: run the round ticker: a block every S seconds (e.g. 1 or 0.5), each
                      also a round block, and every new round initialized - so rounds pass, reward
                      can be missed, and a stopped ticker makes the chain go stale (default: none;
                      the chain mines only when sent a transaction)
  --round-length N    up: blocks per round (default ${DEVNET_PROTOCOL_PARAMS.roundLength}; set on a running devnet too)
  --orchestrators N   up: orchestrator accounts (default ${DEFAULT_ACCOUNT_PLAN.orchestrators})
  --gateways N        up: gateway accounts (default ${DEFAULT_ACCOUNT_PLAN.gateways})
  --deposit ETH       up: each gateway's TicketBroker deposit (default ${formatEther(DEFAULT_ACCOUNT_PLAN.deposit)})
  --reserve ETH       up: each gateway's TicketBroker reserve (default ${formatEther(DEFAULT_ACCOUNT_PLAN.reserve)})
  --account NAME      reward, drain, unbond, service-uri: the devnet account that acts
  --rounds N          round: how many rounds to jump (default 1)
  --json              up, status: print the facts as JSON on stdout
  --purge             down: also delete deployments/devnet/ and .devnet/ (keystores too)
  --name NAME         configmap: the ConfigMap's name (default devnet)
  --namespace NS      configmap: its namespace (default: kubectl's)
  --eth-url URL       configmap: chain URL for the pods (default: the devnet's own, which only
                      pods sharing this machine's loopback reach, as in the local control plane)

What 'up' makes (progress, step by step with durations, goes to stderr):
  deployments/devnet/<Contract>.json   {"address", "abi"}; managers behind a ManagerProxy have
                                       the proxy's address and the target's ABI; .chainId
  .devnet/accounts/<role>-<n>/keystore/UTC--<time>--<address>   encrypted JSON keystore
                                       (light scrypt: N=4096, p=6, fast to unlock; dev keys only)
  .devnet/accounts/<role>-<n>/password                          its password, no trailing newline
  .devnet/state.json, chain.pid, chain.log, hardhat.config.cjs

Orchestrator n bonds 1000 LPT to itself, registers as transcoder (reward cut 10%, fee share 5%)
with service URI https://127.0.0.1:<8935+n>, and is active from the next round. Gateway n has
the deposit and reserve above. Chain id 1337; keys come from a fixed public devnet mnemonic.`;

function count(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${what}: '${value}' is not a whole number`);
  return Number(value);
}

function accountPlan(values: Record<string, string | boolean | undefined>): Partial<AccountPlan> {
  const plan: Partial<AccountPlan> = {};
  const orchestrators = count(values.orchestrators as string | undefined, "--orchestrators");
  const gateways = count(values.gateways as string | undefined, "--gateways");
  if (orchestrators !== undefined) plan.orchestrators = orchestrators;
  if (gateways !== undefined) plan.gateways = gateways;
  try {
    if (typeof values.deposit === "string") plan.deposit = parseEthAmount(values.deposit, "--deposit");
    if (typeof values.reserve === "string") plan.reserve = parseEthAmount(values.reserve, "--reserve");
  } catch (err) {
    if (err instanceof AmountError) throw new UsageError(err.message);
    throw err;
  }
  return plan;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

function summary(state: DevnetState): string {
  const lines = [
    `devnet ${state.reused ? "reused" : "ready"}: ${state.url} (chain id ${state.chainId}, chain pid ${state.pid})`,
    `Controller ${state.contracts.Controller} (deployments in ${state.deploymentsDir})`,
    ...(state.ticker
      ? [
          `round ticker pid ${state.ticker.pid}: a block every ${state.ticker.blockIntervalMs} ms, a round every ${state.ticker.roundLength} blocks (log ${state.ticker.logFile})`,
        ]
      : []),
    ...state.accounts.map(
      (a) => `${a.name.padEnd(15)} ${a.address}  keystore ${a.keystoreFile}  password ${a.passwordFile}`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}

async function up(values: Record<string, string | boolean | undefined>): Promise<number> {
  const port = count(values.port as string | undefined, "--port");
  if (port !== undefined && port > 65_535) throw new UsageError(`--port: ${port} is not a TCP port`);
  const foreground = values.foreground === true;
  const blockInterval = values["block-interval"] as string | undefined;
  if (
    blockInterval !== undefined &&
    !(/^\d+(\.\d+)?$/.test(blockInterval) && Number(blockInterval) >= 0.05)
  ) {
    throw new UsageError(
      `--block-interval: '${blockInterval}' is not a number of seconds of at least 0.05, like 1 or 0.5`,
    );
  }
  const roundLength = count(values["round-length"] as string | undefined, "--round-length");
  if (roundLength === 0) throw new UsageError("--round-length: a round is at least 1 block");
  const t0 = performance.now();
  let state: DevnetState;
  try {
    state = await devnetUp({
      dir: values.dir as string,
      port,
      detached: !foreground,
      accounts: accountPlan(values),
      ...(blockInterval !== undefined ? { blockIntervalMs: Math.round(Number(blockInterval) * 1000) } : {}),
      ...(roundLength !== undefined ? { roundLength } : {}),
      progress: log,
    });
  } catch (err) {
    log(`livepeer-operator devnet up: ${(err as Error).message}`);
    return 1;
  }
  log(`[devnet] ${state.reused ? "reused" : "ready"} in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  process.stdout.write(values.json ? `${JSON.stringify(state, null, 2)}\n` : summary(state));
  if (!foreground) return 0;
  log("[devnet] running in the foreground; Ctrl-C stops the chain");
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (!isAlive(state.pid)) {
        log(`[devnet] the chain (pid ${state.pid}) exited; see ${state.logFile}`);
        resolve();
      }
    }, 500);
    const stop = () => {
      clearInterval(timer);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await devnetDown({ dir: values.dir as string });
  log("[devnet] stopped");
  return 0;
}

async function down(values: Record<string, string | boolean | undefined>): Promise<number> {
  const result = await devnetDown({ dir: values.dir as string, purge: values.purge === true });
  log(
    result.stoppedPid !== undefined
      ? `[devnet] stopped the chain (pid ${result.stoppedPid})`
      : "[devnet] no devnet chain was running",
  );
  if (result.stoppedTickerPid !== undefined)
    log(`[devnet] stopped the round ticker (pid ${result.stoppedTickerPid})`);
  if (result.purged) log("[devnet] removed deployments/devnet/ and .devnet/");
  return 0;
}

async function status(values: Record<string, string | boolean | undefined>): Promise<number> {
  const s = await readDevnetStatus({ dir: values.dir as string });
  process.stdout.write(values.json ? `${JSON.stringify(s, null, 2)}\n` : formatDevnetStatus(s));
  return s.running ? 0 : 1;
}

async function configMap(values: Record<string, string | boolean | undefined>): Promise<number> {
  const { DevnetConfigMapError, devnetConfigMapJson } = await import("../../dev/devnet-configmap.ts");
  try {
    process.stdout.write(
      devnetConfigMapJson({
        dir: values.dir as string,
        name: (values.name as string | undefined) ?? "devnet",
        ...(typeof values.namespace === "string" ? { namespace: values.namespace } : {}),
        ...(typeof values["eth-url"] === "string" ? { ethUrl: values["eth-url"] } : {}),
      }),
    );
  } catch (err) {
    if (err instanceof DevnetConfigMapError) throw new UsageError(err.message, err.exitCode);
    throw err;
  }
  return 0;
}

export const command: Command = {
  name: "devnet",
  summary:
    "Local testnet: dev chain + Livepeer protocol + funded accounts: up | down | status, and moves (reward, drain, ...).",
  usage,
  async run(args) {
    const negative = negativeAmountOption(args, ["--deposit", "--reserve"]);
    if (negative) throw new UsageError(negative.message);
    let parsed: ReturnType<typeof parseDevnetArgs>;
    try {
      parsed = parseDevnetArgs(args);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const { values, positionals } = parsed;
    const verb = positionals[0];
    if ((DEVNET_ACTIONS as readonly string[]).includes(verb ?? "")) {
      if (positionals.length > 2) throw new UsageError(`unexpected argument '${positionals[2]}'`);
      return runDevnetAction(verb as DevnetAction, {
        dir: values.dir as string,
        ...(typeof values.account === "string" ? { account: values.account } : {}),
        ...(typeof values.rounds === "string" ? { rounds: values.rounds } : {}),
        ...(positionals[1] !== undefined ? { argument: positionals[1] } : {}),
      });
    }
    if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}'`);
    switch (verb) {
      case "up":
        return up(values);
      case "down":
        return down(values);
      case "status":
        return status(values);
      case "configmap":
        return configMap(values);
      default:
        throw new UsageError(
          `expected 'up', 'down', 'status', 'configmap' or one of ${DEVNET_ACTIONS.map((a) => `'${a}'`).join(", ")}; see 'livepeer-operator devnet --help'`,
        );
    }
  },
};

function parseDevnetArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      dir: { type: "string", default: "." },
      port: { type: "string" },
      foreground: { type: "boolean", default: false },
      "block-interval": { type: "string" },
      "round-length": { type: "string" },
      account: { type: "string" },
      rounds: { type: "string" },
      orchestrators: { type: "string" },
      gateways: { type: "string" },
      deposit: { type: "string" },
      reserve: { type: "string" },
      json: { type: "boolean", default: false },
      purge: { type: "boolean", default: false },
      name: { type: "string" },
      namespace: { type: "string" },
      "eth-url": { type: "string" },
    },
  });
}
