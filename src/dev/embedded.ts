// The embedded default (`npm start`): everything the product needs on one machine with no
// cluster, or on the cluster KUBECONFIG names. Each part is a named step that starts something
// and returns how to stop it; they stop in reverse order on Ctrl-C.
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { startControlPlane } from "./cluster/control-plane.ts";
import { applyFleet } from "./cluster/fleet.ts";
import { defaultFleet } from "./cluster/nodes.ts";
import { announceReady, clearState, type DevState } from "./ready.ts";

export interface EmbeddedOptions {
  /** Directory holding `.dev/` (the current directory by default). */
  baseDir: string;
  /** Use this cluster instead of starting the local control plane. */
  kubeconfig?: string;
  log?: (line: string) => void;
}

export interface Running {
  state: DevState;
  stop(): Promise<void>;
}

export async function startEmbedded(opts: EmbeddedOptions): Promise<Running> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((e: Error) => log(`[dev] stopping: ${e.message}`));
    clearState(opts.baseDir);
  };
  try {
    let kubeconfig = opts.kubeconfig;
    if (kubeconfig) {
      log(`[dev] using the cluster in ${kubeconfig} (KUBECONFIG); no local control plane`);
    } else {
      const dir = path.join(opts.baseDir, ".dev", "cluster");
      rmSync(dir, { recursive: true, force: true });
      const t0 = Date.now();
      const cp = await startControlPlane({ dir, progress: log });
      stops.push(async () => {
        await cp.stop();
        rmSync(dir, { recursive: true, force: true });
      });
      const kc = new KubeConfig();
      kc.loadFromFile(cp.kubeconfig);
      await applyFleet(kc, defaultFleet);
      log(
        `[dev] local control plane ready in ${((Date.now() - t0) / 1000).toFixed(1)} s with ${defaultFleet.length} fake nodes`,
      );
      kubeconfig = cp.kubeconfig;
    }
    const state: DevState = { kubeconfig: path.resolve(kubeconfig), pid: process.pid };
    announceReady(opts.baseDir, state);
    return { state, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Runs until SIGINT/SIGTERM, then stops everything and exits 0. */
export async function runUntilSignal(running: Running, log: (line: string) => void): Promise<number> {
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  log("[dev] shutting down");
  await running.stop();
  log("[dev] stopped; nothing left running");
  return 0;
}

export function kubeconfigFromEnv(): string | undefined {
  const k = process.env.KUBECONFIG;
  return k && existsSync(k.split(path.delimiter)[0]!) ? k.split(path.delimiter)[0] : undefined;
}
