// What integration tests share: a client for the run's control plane and a namespace per test file.
import { randomBytes } from "node:crypto";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { inject } from "vitest";
import { runKubectl } from "../../../src/dev/cluster/control-plane.ts";
import { KubeClient, PooledKubeConfig } from "../../../src/kube/index.ts";

/** A plain client-node KubeConfig for the run's control plane (for makeApiClient and the like). */
export function kubeConfig(): KubeConfig {
  return loaded(new KubeConfig());
}

/**
 * A PooledKubeConfig for the run's control plane, with its own connection pool: each call opens
 * a separate pool (a Manager's, a test file's). close() it when done.
 */
export function pooledKubeConfig(): PooledKubeConfig {
  return loaded(new PooledKubeConfig());
}

/**
 * A test file's KubeClient on a fresh pooledKubeConfig(), returned with that config: close the
 * config in afterAll (it holds the client's connections); it also serves makeApiClient.
 */
export function kubeClient(): { kc: PooledKubeConfig; client: KubeClient } {
  const kc = pooledKubeConfig();
  return { kc, client: new KubeClient(kc) };
}

function loaded<T extends KubeConfig>(kc: T): T {
  kc.loadFromFile(inject("kubeconfig"));
  return kc;
}

export function kubectl(args: string[], input?: string): Promise<string> {
  return runKubectl(inject("kubectl"), inject("kubeconfig"), args, input);
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString("hex")}`;
}

/** Creates a namespace for one test file; call the returned function in afterAll. */
export async function testNamespace(prefix: string): Promise<{ name: string; remove(): Promise<void> }> {
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const name = uniqueName(prefix);
  await core.createNamespace({ body: { metadata: { name, labels: { "livepeer.org/test": "true" } } } });
  return {
    name,
    async remove() {
      await core.deleteNamespace({ name }).catch(() => undefined);
    },
  };
}
