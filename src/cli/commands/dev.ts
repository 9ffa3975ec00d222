import { parseArgs } from "node:util";
import { kubeconfigFromEnv, runUntilSignal, startEmbedded } from "../../dev/embedded.ts";
import type { Command } from "../command.ts";

export const command: Command = {
  name: "dev",
  summary: "Run the whole product locally (what `npm start` runs) until Ctrl-C.",
  usage: `Usage: livepeer-operator dev [--dir DIR]

Starts the local control plane (real etcd, kube-apiserver, controller-manager, scheduler, kwok
with fake GPU nodes) - or uses the cluster KUBECONFIG names - and then the operator's parts.
Prints one line 'READY {json}' (kubeconfig, ...) when everything is up, writes the same plus
secrets to DIR/.dev/state.json (mode 0600), and cleans everything up on Ctrl-C.

Options:
  --dir DIR   where .dev/ lives (default: the current directory)`,
  async run(args) {
    const { values } = parseArgs({ args, options: { dir: { type: "string", default: "." } } });
    const log = (l: string) => process.stderr.write(`${l}\n`);
    const running = await startEmbedded({ baseDir: values.dir!, kubeconfig: kubeconfigFromEnv(), log });
    return runUntilSignal(running, log);
  },
};
