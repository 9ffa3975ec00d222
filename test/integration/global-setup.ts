// One local control plane per test run (real etcd, kube-apiserver, controller-manager,
// scheduler and kwok with fake GPU nodes). Test files isolate themselves by namespace and,
// where placement matters, by node pool.
import { KubeConfig } from "@kubernetes/client-node";
import type { TestProject } from "vitest/node";
import { type ControlPlane, startControlPlane } from "../../src/dev/cluster/control-plane.ts";
import { applyFleet } from "../../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../../src/dev/cluster/nodes.ts";

declare module "vitest" {
  export interface ProvidedContext {
    kubeconfig: string;
    kubectl: string;
    helm: string;
    controlPlaneDir: string;
  }
}

let cp: ControlPlane | undefined;

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const t0 = Date.now();
  cp = await startControlPlane({ progress: (l) => process.stderr.write(`${l}\n`) });
  const kc = new KubeConfig();
  kc.loadFromFile(cp.kubeconfig);
  await applyFleet(kc, defaultFleet);
  process.stderr.write(
    `[cluster] control plane ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (processes up in ${(cp.startupMs / 1000).toFixed(1)} s), ${defaultFleet.length} fake nodes\n`,
  );
  project.provide("kubeconfig", cp.kubeconfig);
  project.provide("kubectl", cp.binaries.kubectl);
  project.provide("helm", cp.binaries.helm);
  project.provide("controlPlaneDir", cp.dir);
  return async () => {
    await cp?.stop();
  };
}
