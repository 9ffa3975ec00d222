// The Orchestrator controller on the real local control plane with kwok GPU nodes: placement per
// GPU class, session limits end to end, the split setup's wiring, rolling on spec changes and
// garbage collection. Each test gets its own fenced node pool, so placement is deterministic.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { V1StatefulSet } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orchestratorController } from "../../src/controller/orchestrator/controller.ts";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { createNodePool, type NodePool } from "../../src/dev/cluster/fleet.ts";
import type { FakeNodeSpec } from "../../src/dev/cluster/nodes.ts";
import { defaultFleet } from "../../src/dev/cluster/nodes.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { type SimulatorFleet, startSimulatorFleet } from "../../src/dev/simulators.ts";
import {
  ConfigMaps,
  isNotFound,
  type KubeObject,
  Secrets,
  Services,
  StatefulSets,
} from "../../src/kube/index.ts";
import { kubeClient, kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { startTestManager } from "./support/manager.ts";
import { condition, isServing, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
const pools: NodePool[] = [];
// Ready means the node answers: a node simulator serves each pod on its loopback IP.
let sims: SimulatorFleet;
const simDir = mkdtempSync(path.join(tmpdir(), "orch-sims-"));
const fleet = (name: string): FakeNodeSpec => defaultFleet.find((n) => n.name === name)!;

beforeAll(async () => {
  ns = await testNamespace("orch");
  await installCrds(kubectl);
  manager = await startTestManager("orchestrator-test", ns.name, [
    orchestratorController({ defaultImage: "livepeer/go-livepeer:test" }),
  ]);
  sims = startSimulatorFleet(kubeConfig(), simDir, () => undefined, { namespace: ns.name });
});
afterAll(async () => {
  await manager?.stop("tests done");
  await sims?.stop();
  rmSync(simDir, { recursive: true, force: true });
  await Promise.all(pools.map((p) => p.delete()));
  await ns.remove();
  await kc.close();
});

async function pool(name: string, nodes: FakeNodeSpec[]): Promise<NodePool> {
  const p = await createNodePool(kubeConfig(), `${ns.name}-${name}`, nodes);
  pools.push(p);
  return p;
}

const kit = orchestratorKit(client, () => ns.name);
const { apply, until } = kit;
const isReady = isServing;

async function config(name: string): Promise<string> {
  const cm = await client.get<KubeObject & { data?: Record<string, string> }>(ConfigMaps, ns.name, name);
  return cm?.data?.["livepeer.conf"] ?? "";
}

describe("Orchestrator on GPUs", () => {
  it("2 consumer GPUs: placed on the RTX 3090 node, 8 sessions with the arithmetic explained", async () => {
    const p = await pool("rtx", [fleet("gpu-rtx3090-a"), fleet("gpu-a100")]);
    await apply("rtx", { gpu: { count: 2, product: "NVIDIA-GeForce-RTX-3090" } }, p);
    const o = await until("rtx", isReady);
    expect(o.status?.maxSessions).toBe(8);
    expect(o.status?.maxSessionsReason).toBe(
      "2 x NVIDIA-GeForce-RTX-3090: NVENC cap 8 / 2 renditions = 4 streams each -> 8",
    );
    expect(o.status?.node).toBe(`${p.name}-gpu-rtx3090-a`);
    expect(o.status?.gpuProduct).toBe("NVIDIA-GeForce-RTX-3090");
    expect(condition(o, "Scheduled")).toMatchObject({ status: "True", reason: "Scheduled" });
    const conf = await config("rtx-config");
    expect(conf).toMatch(/^maxSessions 8$/m);
    expect(conf).toMatch(/^nvidia 0,1$/m);
    expect(conf).toMatch(/^cliAddr 0\.0\.0\.0:7935$/m);
    expect(conf).toMatch(/^httpAddr 0\.0\.0\.0:8935$/m);
    expect(conf).toMatch(/^monitor$/m);
    const sts = await client.get<KubeObject & V1StatefulSet>(StatefulSets, ns.name, "rtx");
    const container = sts!.spec!.template.spec!.containers[0]!;
    expect(container.resources?.limits?.["nvidia.com/gpu"]).toBe("2");
    expect(container.args).toEqual(["-config", "/etc/livepeer/livepeer.conf"]);
    expect(sts!.spec!.template.spec!.tolerations).toContainEqual({
      key: "nvidia.com/gpu",
      operator: "Exists",
      effect: "NoSchedule",
    });
    expect(sts!.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "Orchestrator",
      name: "rtx",
      controller: true,
    });
  });

  it("unpinned video work avoids the encoder-less A100 and lands on the T4 (14 sessions)", async () => {
    const p = await pool("t4", [fleet("gpu-a100"), fleet("gpu-t4")]);
    await apply("t4", { gpu: { count: 1 } }, p);
    const o = await until("t4", isReady);
    expect(o.status?.node).toBe(`${p.name}-gpu-t4`);
    expect(o.status?.maxSessions).toBe(14);
  });

  it("a time-sliced T4 shares its encoder: 3 sessions", async () => {
    const p = await pool("shared", [fleet("gpu-t4-shared")]);
    await apply("shared", { gpu: { count: 1 } }, p);
    const o = await until("shared", isReady);
    expect(o.status?.maxSessions).toBe(3);
    expect(o.status?.maxSessionsReason).toMatch(/time-sliced 4 ways/);
  });

  it("only encoder-less GPUs available: Scheduled=False, NoSuitableNode", async () => {
    const p = await pool("a100", [fleet("gpu-a100")]);
    await apply("a100", { gpu: { count: 1 } }, p);
    const o = await until("a100", (x) => condition(x, "Scheduled")?.status === "False");
    expect(condition(o, "Scheduled")?.reason).toBe("NoSuitableNode");
    expect(condition(o, "Ready")?.status).toBe("False");
  });

  it("more GPUs than the pinned node has: Scheduled=False with the scheduler's reason", async () => {
    const p = await pool("toomany", [fleet("gpu-t4")]);
    await apply("toomany", { gpu: { count: 3, product: "Tesla-T4" } }, p);
    const o = await until("toomany", (x) => condition(x, "Scheduled")?.reason === "Unschedulable");
    expect(condition(o, "Scheduled")?.message).toMatch(/Insufficient nvidia.com\/gpu/);
  });

  it("CPU only: 5 sessions and no GPU constraints", async () => {
    const p = await pool("cpu", [fleet("cpu-only")]);
    await apply("cpu", {}, p);
    const o = await until("cpu", isReady);
    expect(o.status?.maxSessions).toBe(5);
    const sts = await client.get<KubeObject & V1StatefulSet>(StatefulSets, ns.name, "cpu");
    expect(sts!.spec!.template.spec!.containers[0]!.resources?.limits?.["nvidia.com/gpu"]).toBeUndefined();
    expect(await config("cpu-config")).not.toMatch(/^nvidia /m);
  });

  it("an override above what the encoder can carry is a warning finding, not a refusal", async () => {
    const p = await pool("over", [fleet("gpu-rtx3090-b")]);
    await apply("over", { gpu: { count: 1, product: "NVIDIA-GeForce-RTX-3090" }, maxSessions: 20 }, p);
    const o = await until("over", (x) => isReady(x) && !!x.status?.findings?.length);
    expect(o.status?.maxSessions).toBe(20);
    expect(o.status?.findings).toContainEqual(
      expect.objectContaining({ id: "MaxSessionsAboveEncoderCapacity", severity: "warning" }),
    );
    expect(await config("over-config")).toMatch(/^maxSessions 20$/m);
  });

  it("split setup: transcoders with their own GPUs, an owned orchSecret, the orchestrator at auto", async () => {
    const p = await pool("split", [fleet("gpu-t4"), fleet("cpu-only")]);
    await apply("split", { transcoders: { replicas: 1, gpu: { count: 1, product: "Tesla-T4" } } }, p);
    const o = await until("split", isReady);
    expect(o.status?.maxSessions).toBe(14);
    expect(o.status?.maxSessionsReason).toMatch(/^auto: the sum of 1 transcoder/);
    const orchConf = await config("split-config");
    expect(orchConf).toMatch(/^maxSessions auto$/m);
    expect(orchConf).toMatch(/^orchSecret \/var\/run\/secrets\/livepeer\/orch-secret\/secret$/m);
    expect(orchConf).not.toMatch(/^transcoder$/m);
    const tConf = await config("split-transcoder-config");
    expect(tConf).toMatch(/^transcoder$/m);
    expect(tConf).toMatch(
      new RegExp(`^orchAddr split-0\\.split-pods\\.${ns.name}\\.svc\\.cluster\\.local:8935$`, "m"),
    );
    expect(tConf).toMatch(/^maxSessions 14$/m);
    const secret = await client.get<KubeObject & { data?: Record<string, string> }>(
      Secrets,
      ns.name,
      "split-orch-secret",
    );
    expect(Buffer.from(secret!.data!.secret!, "base64").toString()).toMatch(/^[0-9a-f]{64}$/);
    expect(secret!.metadata?.ownerReferences?.[0]?.name).toBe("split");
  });

  it("a config change restarts the node in place; deleting the Orchestrator removes everything it owns", async () => {
    const p = await pool("roll", [fleet("cpu-only")]);
    await apply("roll", { pricePerUnit: "1000" }, p);
    const first = await until("roll", isReady);
    const podOf = async () =>
      JSON.parse(await kubectl(["get", "pod", "roll-0", "-n", ns.name, "-o", "json"]).catch(() => "{}")) as {
        metadata?: { uid?: string };
        status?: { containerStatuses?: { restartCount: number }[] };
      };
    const podBefore = await podOf();
    const restarts = (x: Awaited<ReturnType<typeof podOf>>) =>
      x.status?.containerStatuses?.[0]?.restartCount ?? 0;
    await apply("roll", { pricePerUnit: "2000" }, p);
    await until(
      "roll",
      (o) => isReady(o) && (o.metadata?.generation ?? 0) > (first.metadata?.generation ?? 0),
    );
    expect(await config("roll-config")).toMatch(/^pricePerUnit 2000$/m);
    // Off chain a price is read at start, from the config file only: the same pod, its node restarted.
    await waitFor(
      "the node restarted in place",
      async () => {
        const now = await podOf();
        return now.metadata?.uid === podBefore.metadata?.uid && restarts(now) === restarts(podBefore) + 1;
      },
      60_000,
    );
    await kubectl(["delete", "orchestrator", "roll", "-n", ns.name, "--wait=true"]);
    await waitFor(
      "garbage collection of every child",
      async () => {
        const gone = (read: Promise<unknown>) =>
          read.then(
            (x) => x === undefined,
            (e) => isNotFound(e),
          );
        const left = await Promise.all([
          gone(client.get(StatefulSets, ns.name, "roll")),
          gone(client.get(ConfigMaps, ns.name, "roll-config")),
          gone(client.get(Services, ns.name, "roll")),
          gone(client.get(Services, ns.name, "roll-cli")),
          gone(client.get(Services, ns.name, "roll-pods")),
        ]);
        return left.every(Boolean);
      },
      60_000,
    );
  });

  it("a hand edit of a child is undone (children are rewritten only when they drift)", async () => {
    const p = await pool("drift", [fleet("cpu-only")]);
    await apply("drift", {}, p);
    await until("drift", isReady);
    const image = () =>
      kubectl([
        "get",
        "sts",
        "drift",
        "-n",
        ns.name,
        "-o",
        "jsonpath={.spec.template.spec.containers[0].image}",
      ]);
    expect(await image()).toBe("livepeer/go-livepeer:test");
    await kubectl([
      "patch",
      "sts",
      "drift",
      "-n",
      ns.name,
      "--type=json",
      "--field-manager=someone",
      "-p",
      JSON.stringify([{ op: "replace", path: "/spec/template/spec/containers/0/image", value: "evil:1" }]),
    ]);
    await waitFor(
      "the controller to restore its image",
      async () => (await image()) === "livepeer/go-livepeer:test",
      30_000,
    );
    await kubectl([
      "label",
      "svc",
      "drift-cli",
      "-n",
      ns.name,
      "app.kubernetes.io/instance=someone-else",
      "--overwrite",
    ]);
    await waitFor(
      "the controller to restore the Service's labels",
      async () =>
        (await kubectl([
          "get",
          "svc",
          "drift-cli",
          "-n",
          ns.name,
          "-o",
          "jsonpath={.metadata.labels.app\\.kubernetes\\.io/instance}",
        ])) === "drift",
      30_000,
    );
  });

  it("kubectl shows the printer columns", async () => {
    const out = await kubectl(["get", "orch", "-n", ns.name, "rtx"]);
    expect(out).toMatch(/READY\s+SESSIONS\s+GPU\s+NODE/);
    expect(out).toMatch(/rtx\s+True\s+8\s+NVIDIA-GeForce-RTX-3090/);
  });
});
