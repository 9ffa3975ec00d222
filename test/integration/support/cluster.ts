// What integration tests share: a client for the run's control plane and a namespace per test file.
import { randomBytes } from "node:crypto";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { inject } from "vitest";
import { runKubectl } from "../../../src/dev/cluster/control-plane.ts";

export function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
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
