import { parseArgs } from "node:util";
import { DEFAULT_DEV_BLOCK_INTERVAL_MS, DEFAULT_DEV_ROUND_LENGTH } from "../../dev/devnet.ts";
import { kubeconfigFromEnv, runUntilSignal, startEmbedded } from "../../dev/embedded.ts";
import { type Command, UsageError } from "../command.ts";

const usage = `Usage: livepeer-operator dev [--dir DIR] [--no-chain] [--block-interval S] [--round-length N]

Starts the local control plane (real etcd, kube-apiserver, controller-manager, scheduler, kwok
with fake GPU nodes) - or uses the cluster KUBECONFIG names - and then the operator's parts and,
with the local control plane, a devnet: a dev chain with the Livepeer protocol deployed, funded
and registered accounts and a round ticker, in DIR/.dev/ (as 'devnet up --dir DIR/.dev' makes
it), its deployment exported as the ConfigMap default/livepeer-devnet that spec.devnet names.
Prints one line 'READY {json}' (kubeconfig, apiUrl, metricsUrl, ethUrl, deployments, pid) when
everything is up, writes the same plus secrets to DIR/.dev/state.json (mode 0600), and cleans
everything up on Ctrl-C (the chain and its files too).

Options:
  --dir DIR           where .dev/ lives (default: the current directory)
  --no-chain          no devnet (Orchestrators and Gateways with spec.devnet then say
                      DevnetDeploymentUnavailable)
  --block-interval S  the round ticker mines a block every S seconds (default ${DEFAULT_DEV_BLOCK_INTERVAL_MS / 1000})
  --round-length N    blocks per round (default ${DEFAULT_DEV_ROUND_LENGTH}: a round about every ${DEFAULT_DEV_ROUND_LENGTH} s)

The devnet's accounts and moves are the devnet command's, with --dir DIR/.dev:
  livepeer-operator devnet status --dir .dev
  livepeer-operator devnet reward --dir .dev --account orchestrator-0`;

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowNegative: true,
      options: {
        dir: { type: "string", default: "." },
        chain: { type: "boolean", default: true },
        "block-interval": { type: "string" },
        "round-length": { type: "string" },
      },
    }).values;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}; see 'livepeer-operator dev --help'`);
  }
}

/** The round ticker's settings from the flags, with a message naming the flag when one is wrong. */
export function chainSettings(values: { "block-interval"?: string; "round-length"?: string }): {
  blockIntervalMs: number;
  roundLength: number;
} {
  const interval = values["block-interval"];
  const length = values["round-length"];
  if (interval !== undefined && !(/^\d+(\.\d+)?$/.test(interval) && Number(interval) >= 0.05)) {
    throw new UsageError(
      `--block-interval: '${interval}' is not a number of seconds of at least 0.05, like 1 or 0.5`,
    );
  }
  if (length !== undefined && !(/^\d+$/.test(length) && Number(length) >= 1)) {
    throw new UsageError(`--round-length: '${length}' is not a whole number of blocks of at least 1`);
  }
  return {
    blockIntervalMs:
      interval === undefined ? DEFAULT_DEV_BLOCK_INTERVAL_MS : Math.round(Number(interval) * 1000),
    roundLength: length === undefined ? DEFAULT_DEV_ROUND_LENGTH : Number(length),
  };
}

export const command: Command = {
  name: "dev",
  summary: "Run the whole product locally (what `npm start` runs) until Ctrl-C.",
  usage,
  async run(args) {
    const values = parse(args);
    const chain = values.chain ? chainSettings(values) : false;
    const log = (l: string) => process.stderr.write(`${l}\n`);
    const running = await startEmbedded({
      baseDir: values.dir!,
      kubeconfig: kubeconfigFromEnv(),
      chain,
      log,
    });
    return runUntilSignal(running, log);
  },
};
