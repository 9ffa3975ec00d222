// The status gauges the chart's alerts and dashboard read, from a real Orchestrator on the local
// control plane (kwok GPU node, node simulator): livepeer_operator_condition follows the
// conditions (one series per type, replaced when status or reason change), livepeer_operator_status_fact
// carries maxSessions, and both go when the resource is deleted.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orchestratorController } from "../../src/controller/orchestrator/controller.ts";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { createNodePool, type NodePool } from "../../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../../src/dev/cluster/nodes.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { type SimulatorFleet, startSimulatorFleet } from "../../src/dev/simulators.ts";
import { kubeClient, kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { FAST_DOCTOR, startTestManager } from "./support/manager.ts";
import { isServing, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
let pool: NodePool;
let sims: SimulatorFleet;
const simDir = mkdtempSync(path.join(tmpdir(), "status-metrics-sims-"));

beforeAll(async () => {
  ns = await testNamespace("status-metrics");
  await installCrds(kubectl);
  manager = await startTestManager("status-metrics-test", ns.name, [
    orchestratorController({ defaultImage: "livepeer/go-livepeer:test", doctor: FAST_DOCTOR }),
  ]);
  sims = startSimulatorFleet(kubeConfig(), simDir, () => undefined, { namespace: ns.name });
  pool = await createNodePool(kubeConfig(), `${ns.name}-rtx`, [
    defaultFleet.find((n) => n.name === "gpu-rtx3090-a")!,
  ]);
});
afterAll(async () => {
  await manager?.stop("tests done");
  await sims?.stop();
  rmSync(simDir, { recursive: true, force: true });
  await pool?.delete();
  await ns.remove();
  await kc.close();
});

/** The lines of one metric about this test's Orchestrator `o`. */
async function series(metric: string): Promise<string[]> {
  const text = await manager.metrics.registry.metrics();
  const mine = `${metric}{kind="Orchestrator",namespace="${ns.name}",name="o",`;
  return text.split("\n").filter((l) => l.startsWith(mine));
}

describe("status gauges", () => {
  it("a serving Orchestrator: Ready=True Serving and its session limit; deleted: its series go", async () => {
    const kit = orchestratorKit(client, () => ns.name);
    await kit.apply("o", { gpu: { count: 2, product: "NVIDIA-GeForce-RTX-3090" } }, pool);
    await kit.until("o", isServing);
    // The gauges are set on the visit that wrote the status; a later visit may be under way.
    await waitFor(
      "livepeer_operator_condition Ready=True",
      async () =>
        (await series("livepeer_operator_condition")).some((l) => l.includes('type="Ready",status="True"')),
      15_000,
    );
    const conditions = await series("livepeer_operator_condition");
    const ready = conditions.filter((l) => l.includes('type="Ready"'));
    // One series per condition type: the earlier Ready=False/Unknown series were replaced.
    expect(ready).toEqual([expect.stringContaining('type="Ready",status="True",reason="Serving"} 1')]);
    expect(conditions.some((l) => l.includes('type="NodeReachable",status="True"'))).toBe(true);
    expect(conditions.some((l) => l.includes('type="Scheduled",status="True"'))).toBe(true);
    expect(await series("livepeer_operator_status_fact")).toContain(
      `livepeer_operator_status_fact{kind="Orchestrator",namespace="${ns.name}",name="o",fact="maxSessions"} 8`,
    );

    await kubectl(["delete", "orchestrator", "o", "-n", ns.name, "--wait=true"]);
    await waitFor(
      "the deleted Orchestrator's series gone",
      async () =>
        (await series("livepeer_operator_condition")).length === 0 &&
        (await series("livepeer_operator_status_fact")).length === 0,
      30_000,
    );
  });
});
