// For test files that need real pods: their own control plane (the run's shared one stays
// fake-only) with the default fake fleet and a real kubelet node beside it. Needs root, and
// on a cold machine installs Debian's containerd/runc/CNI plugins and builds the kubelet
// (progress on stderr). Call stop() in afterAll.
import { KubeConfig } from "@kubernetes/client-node";
import { type ControlPlane, runKubectl, startControlPlane } from "../../../src/dev/cluster/control-plane.ts";
import { applyFleet } from "../../../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../../../src/dev/cluster/nodes.ts";
import {
  type RealNode,
  type RealNodeOptions,
  startRealNode,
} from "../../../src/dev/cluster/real-node/real-node.ts";

export interface RealNodeCluster {
  cp: ControlPlane;
  node: RealNode;
  kc: KubeConfig;
  kubectl(args: string[], input?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startClusterWithRealNode(opts: RealNodeOptions = {}): Promise<RealNodeCluster> {
  const progress = opts.progress ?? ((l: string) => process.stderr.write(`${l}\n`));
  const cp = await startControlPlane({ progress });
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfig);
    await applyFleet(kc, defaultFleet);
    const node = await startRealNode(cp, { ...opts, progress });
    return {
      cp,
      node,
      kc,
      kubectl: (args, input) => runKubectl(cp.binaries.kubectl, cp.kubeconfig, args, input),
      async stop() {
        await node.stop().catch((err: Error) => progress(`[real-node] ${err.message}`));
        await cp.stop();
      },
    };
  } catch (err) {
    await cp.stop();
    throw err;
  }
}
