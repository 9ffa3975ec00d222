// Crash safety of the Orchestrator controller: it is SIGKILLed in the middle of a burst of 200
// creates and restarted; everything must converge with no duplicate and no orphaned child.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createNodePool, type NodePool } from "../../src/dev/cluster/fleet.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { ConfigMaps, type KubeObject, Services, StatefulSets } from "../../src/kube/index.ts";
import type { StoredOrchestrator } from "../../src/schema/orchestrator.ts";
import { Orchestrators } from "../../src/schema/resources.ts";
import { kubeClient, kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";
import { startController, stopAllControllers } from "./support/controller-process.ts";
import { installCrds } from "./support/crds.ts";

const COUNT = 200;
const { kc, client } = kubeClient();
let ns: Awaited<ReturnType<typeof testNamespace>>;
let pool: NodePool;

beforeAll(async () => {
  ns = await testNamespace("burst");
  await installCrds(kubectl);
  // 110 pods per fake node: three CPU nodes hold the burst.
  pool = await createNodePool(
    kubeConfig(),
    `${ns.name}-cpu`,
    ["a", "b", "c"].map((n) => ({ name: n, cpu: "64", memory: "256Gi" })),
  );
});
afterAll(async () => {
  await stopAllControllers();
  await pool?.delete();
  await ns.remove();
  await kc.close();
});

describe("Orchestrator controller crash in a burst", () => {
  it(`killed mid-burst of ${COUNT} creates and restarted: all converge, no duplicate or orphan`, async () => {
    const args = [
      `--kubeconfig=${inject("kubeconfig")}`,
      `--namespace=${ns.name}`,
      "--leader-elect=false",
      "--workers=4",
    ];
    const first = startController("burst-1", args);
    await first.waitForLine(/started \d+ workers resource=orchestrators/, 60_000);
    const items = Array.from({ length: COUNT }, (_, i) => ({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Orchestrator",
      metadata: { name: `o-${i}`, namespace: ns.name },
      spec: { podTemplate: { nodeSelector: pool.nodeSelector, tolerations: pool.tolerations } },
    }));
    const creating = kubectl(
      ["apply", "--server-side", "-f", "-"],
      JSON.stringify({ apiVersion: "v1", kind: "List", items }),
    );
    // Kill once the controller is visibly in the middle of the work.
    await waitFor(
      "the controller to have created some children",
      async () => (await client.list(StatefulSets, { namespace: ns.name })).items.length >= 10,
      60_000,
    );
    await first.stop("SIGKILL");
    await creating;
    const second = startController("burst-2", args);
    const t0 = Date.now();
    let ready = 0;
    // No node process runs behind these fake pods, so the truthful end state is pods Ready and
    // Ready=False for NodeUnreachable (the node doctor found nothing listening), not Ready=True.
    await waitFor(
      `all ${COUNT} Orchestrators converged at their generation`,
      async () => {
        const list = await client.list<StoredOrchestrator>(Orchestrators, { namespace: ns.name });
        ready = list.items.filter(
          (o) =>
            o.status?.observedGeneration === o.metadata?.generation &&
            o.status?.conditions?.some(
              (c) => c.type === "Ready" && (c.status === "True" || c.reason === "NodeUnreachable"),
            ),
        ).length;
        return ready === COUNT;
      },
      240_000,
      () => `${ready} of ${COUNT} Ready\n${second.log().slice(-2000)}`,
    );
    process.stderr.write(
      `[burst] ${COUNT} Orchestrators converged ${((Date.now() - t0) / 1000).toFixed(1)} s after the restart\n`,
    );

    const orchs = (await client.list<StoredOrchestrator>(Orchestrators, { namespace: ns.name })).items;
    const uids = new Set(orchs.map((o) => o.metadata?.uid));
    for (const [type, perOrchestrator] of [
      [StatefulSets, 1],
      [ConfigMaps, 1],
      [Services, 3],
    ] as const) {
      const children = (await client.list<KubeObject>(type, { namespace: ns.name })).items.filter(
        (c) => c.metadata?.labels?.["app.kubernetes.io/managed-by"] === "livepeer-operator",
      );
      expect(children.length, `${type.plural}`).toBe(COUNT * perOrchestrator);
      for (const child of children) {
        const owners = (child.metadata?.ownerReferences ?? []).filter((r) => r.controller);
        expect(owners, `${type.plural} ${child.metadata?.name}`).toHaveLength(1);
        expect(uids.has(owners[0]!.uid), `${child.metadata?.name} is owned by an existing Orchestrator`).toBe(
          true,
        );
      }
    }
  }, 400_000);
});
