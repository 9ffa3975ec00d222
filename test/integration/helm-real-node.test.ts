// The chart installed for real: `helm install` of the locally built images on a control plane
// with a real kubelet node, running kube-proxy so the pods reach the API server through the
// `kubernetes` Service with their in-cluster config. The controller and API pods pass their own
// probes as non-root on a read-only root; an Orchestrator asking for one GPU lands on the real
// node, gets a device from the fake plugin and goes Ready (the controller, in its pod, reads the
// node's endpoints and log); a webhook round-trips through the API Service's ClusterIP; RBAC
// denies what the code does not use; `helm upgrade` rolls the controller; `helm uninstall`
// leaves the CRDs. Needs root (the real node).
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import { dump } from "js-yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintToken } from "../../src/api/auth/mint.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { kubeProxyChains } from "../../src/dev/cluster/real-node/service-proxy.ts";
import { type BuiltImages, buildImages } from "../../src/dev/image/build.ts";
import { type RealNodeCluster, startClusterWithRealNode } from "./support/real-node.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const chart = path.join(root, "deploy/helm/livepeer-operator");
const NS = "livepeer-system";
const APP_NS = "video";
const RELEASE = "lpo";
const log = (l: string) => process.stderr.write(`${l}\n`);

let cluster: RealNodeCluster;
let core: CoreV1Api;
let built: BuiltImages;
let work: string;
let valuesFile: string;
let installToReadyMs = 0;

function helm(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      cluster.cp.binaries.helm,
      [...args, `--kubeconfig=${cluster.cp.kubeconfig}`],
      { maxBuffer: 32 * 1024 * 1024, timeout: 300_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

const kubectl = (args: string[], input?: string) => cluster.kubectl(args, input);

async function pods(component: string): Promise<V1Pod[]> {
  return (
    await core.listNamespacedPod({
      namespace: NS,
      labelSelector: `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=${component}`,
    })
  ).items;
}

const isReady = (p: V1Pod) =>
  !p.metadata?.deletionTimestamp &&
  !!p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");

/** What went wrong with the release's pods: their status and the last log lines. */
async function podsReport(): Promise<string> {
  const out = await kubectl(["get", "pods", "-A", "-o", "wide"]).catch((e: Error) => e.message);
  const all = (await core.listNamespacedPod({ namespace: NS })).items;
  const details = await Promise.all(
    all.map(async (p) => {
      const logs = await kubectl(["logs", "-n", NS, p.metadata!.name!, "--tail=15"]).catch(
        (e: Error) => e.message,
      );
      return `--- ${p.metadata?.name}: ${JSON.stringify(p.status?.containerStatuses?.map((c) => c.state))}\n${logs}`;
    }),
  );
  return `${out}\n${details.join("\n")}`;
}

async function waitPodsReady(component: string, count: number, ok: (p: V1Pod) => boolean = () => true) {
  let last: V1Pod[] = [];
  await waitFor(
    `${count} ${component} pods Ready`,
    async () => {
      last = (await pods(component)).filter((p) => !p.metadata?.deletionTimestamp);
      return last.length === count && last.every((p) => isReady(p) && ok(p));
    },
    180_000,
    () => `${last.map((p) => `${p.metadata?.name} ready=${isReady(p)}`).join(", ")}`,
  ).catch(async (err: Error) => {
    throw new Error(`${err.message}\n${await podsReport()}`);
  });
  return last;
}

async function exec(pod: string, namespace: string, script: string): Promise<string> {
  return (await kubectl(["exec", "-n", namespace, pod, "--", "/usr/local/bin/node", "-e", script])).trim();
}

describe("helm install on a real node", () => {
  beforeAll(async () => {
    if (process.getuid?.() !== 0) {
      throw new Error(
        "helm-real-node.test.ts needs root: it runs a real kubelet node (containerd, mounts, network namespaces, kube-proxy's iptables rules)",
      );
    }
    const t0 = Date.now();
    cluster = await startClusterWithRealNode({ gpus: 2, serviceProxy: true, progress: log });
    const t = cluster.node.timings;
    log(
      `[helm-real-node] control plane + real node in ${((Date.now() - t0) / 1000).toFixed(1)} s (node start to Ready ${(t.startToReadyMs / 1000).toFixed(1)} s, kube-proxy ${(t.serviceProxyMs / 1000).toFixed(1)} s, node total ${(t.totalMs / 1000).toFixed(1)} s)`,
    );
    core = cluster.kc.makeApiClient(CoreV1Api);
    const t1 = Date.now();
    built = await buildImages({ log });
    const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
    log(
      `[helm-real-node] images in ${((Date.now() - t1) / 1000).toFixed(1)} s: archive ${mb(built.operator.archiveBytes)}, layers gzip ${mb(built.layers.base.gzipBytes + built.layers.app.gzipBytes)}, unpacked ${mb(built.unpackedBytes)}`,
    );
    for (const image of [built.operator, built.simulator]) {
      const names = await cluster.node.importImage(image.archive);
      expect(names.join(" ")).toContain(image.ref);
    }
    const [repository, tag] = built.operator.ref.split(":");
    work = mkdtempSync(path.join(tmpdir(), "helm-real-node-"));
    valuesFile = path.join(work, "values.yaml");
    const onRealNode = {
      nodeSelector: { "livepeer.org/real-node": "true" },
      tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
    };
    writeFileSync(
      valuesFile,
      dump({
        image: { repository, tag, pullPolicy: "Never" },
        nodeImage: built.simulator.ref,
        controller: onRealNode,
        // No storage provisioner on the local node: the SQLite delivery store on an emptyDir.
        api: { ...onRealNode, delivery: { sqlite: { persistence: { enabled: false } } } },
      }),
    );
    await kubectl(["create", "namespace", NS]);
    await kubectl(["create", "namespace", APP_NS]);
    for (const ns of [NS, APP_NS]) {
      await waitFor(
        `the default ServiceAccount in ${ns}`,
        async () => !!(await core.readNamespacedServiceAccount({ name: "default", namespace: ns })),
        30_000,
      );
    }
  }, 2_400_000);

  afterAll(async () => {
    await cluster?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("installs, and the controller and API pods pass their own probes on the real node (non-root, read-only root)", async () => {
    const t0 = Date.now();
    const r = await helm(["install", RELEASE, chart, "-n", NS, "-f", valuesFile]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`livepeer-operator ${built.operator.ref.split(":")[1]} is installed`);
    const controllers = await waitPodsReady("controller", 2);
    const apis = await waitPodsReady("api", 1);
    installToReadyMs = Date.now() - t0;
    log(`[helm-real-node] helm install to 3 pods Ready: ${(installToReadyMs / 1000).toFixed(1)} s`);

    for (const p of [...controllers, ...apis]) {
      expect(p.spec?.nodeName).toBe(cluster.node.nodeName);
      expect(p.status?.podIP).toMatch(/^10\.213\./);
      const c = p.spec!.containers[0]!;
      expect(c.readinessProbe?.httpGet?.path).toBe("/readyz");
      expect(c.securityContext?.readOnlyRootFilesystem).toBe(true);
      const name = p.metadata!.name!;
      const identity = JSON.parse(
        await exec(name, NS, "console.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid() }))"),
      );
      expect(identity).toEqual({ uid: 65532, gid: 65532 });
      const write = await exec(
        name,
        NS,
        "try { require('fs').writeFileSync('/app/x', ''); console.log('wrote') } catch (e) { console.log(e.code) }",
      );
      expect(write).toBe("EROFS");
    }
    // The in-cluster config: the Service's ClusterIP, through kube-proxy to the API server.
    const env = await exec(
      controllers[0]!.metadata!.name!,
      NS,
      "console.log(process.env.KUBERNETES_SERVICE_HOST)",
    );
    expect(env).toBe("10.96.0.1");
    // One controller leads (the Lease names a pod of this release).
    const lease = JSON.parse(await kubectl(["get", "leases", "-n", NS, "-o", "json"])) as {
      items: { spec?: { holderIdentity?: string } }[];
    };
    const holders = lease.items.map((l) => l.spec?.holderIdentity ?? "");
    expect(holders.some((h) => controllers.some((p) => h.includes(p.metadata!.name!)))).toBe(true);
  }, 300_000);

  it("an offchain Orchestrator with one GPU lands on the real node, gets a fake device and goes Ready, Simulated", async () => {
    const body = {
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Orchestrator",
      metadata: { name: "real", namespace: APP_NS },
      spec: { gpu: { count: 1 }, podTemplate: { nodeSelector: { "livepeer.org/real-node": "true" } } },
    };
    await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(body));
    type Orch = {
      metadata: { generation: number };
      status?: {
        observedGeneration?: number;
        node?: string;
        conditions?: { type: string; status: string; reason?: string; message?: string }[];
      };
    };
    let last: Orch | undefined;
    const cond = (o: Orch | undefined, type: string) => o?.status?.conditions?.find((c) => c.type === type);
    await waitFor(
      "the Orchestrator Ready and Simulated",
      async () => {
        last = JSON.parse(
          await kubectl(["get", "orchestrators.livepeer.org", "real", "-n", APP_NS, "-o", "json"]),
        );
        return cond(last, "Ready")?.status === "True" && cond(last, "Simulated")?.status === "True";
      },
      180_000,
      () => JSON.stringify(last?.status, null, 1),
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await podsReport()}`);
    });
    expect(last?.status?.node).toBe(cluster.node.nodeName);

    const nodePods = (await core.listNamespacedPod({ namespace: APP_NS })).items;
    expect(nodePods).toHaveLength(1);
    const pod = nodePods[0]!;
    expect(pod.spec?.nodeName).toBe(cluster.node.nodeName);
    expect(pod.status?.phase).toBe("Running");
    expect(pod.spec?.containers[0]?.image).toBe(built.simulator.ref);
    const visible = await exec(
      pod.metadata!.name!,
      APP_NS,
      "console.log(process.env.NVIDIA_VISIBLE_DEVICES)",
    );
    expect(cluster.node.deviceIds).toContain(visible);
    expect(cluster.node.plugin.allocations()).toContainEqual([visible]);

    // Its ports answer at the pod IP, from this host as from the controller's pod.
    const ip = pod.status!.podIP!;
    const status = (await (await fetch(`http://${ip}:7935/status`)).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ Simulated: true });
    const service = await fetch(`http://${ip}:8935/`).then(
      (r) => r.status,
      (e: Error) => e.message,
    );
    expect(typeof service, String(service)).toBe("number");
    // The controller in its pod read the node's log through the API (pods/log) and its endpoints.
    const controllerLogs = await kubectl([
      "logs",
      "-n",
      NS,
      "-l",
      "app.kubernetes.io/component=controller",
      "--tail=-1",
    ]);
    expect(controllerLogs).not.toMatch(/Unauthorized|forbidden/i);
  }, 300_000);

  it("a webhook created through the API Service's ClusterIP round-trips", async () => {
    const secret = JSON.parse(
      await kubectl(["get", "secret", `${RELEASE}-api-jwt`, "-n", NS, "-o", "json"]),
    ) as {
      data: Record<string, string>;
    };
    const key = Buffer.from(secret.data["jwt-secret"]!, "base64");
    const token = await mintToken({ secret: key, sub: "alice", ttlSeconds: 600 });
    const svc = JSON.parse(await kubectl(["get", "service", `${RELEASE}-api`, "-n", NS, "-o", "json"])) as {
      spec: { clusterIP: string; ports: { port: number }[] };
    };
    const base = `http://${svc.spec.clusterIP}:${svc.spec.ports[0]!.port}/api`;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const created = await fetch(`${base}/webhook`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        name: "real",
        url: "https://example.com/hook",
        events: ["stream.started"],
        sharedSecret: "real-s3cret",
      }),
    });
    const hook = (await created.json()) as { id: string; name: string; url: string; userId: string };
    expect(created.status, JSON.stringify(hook)).toBe(200);
    expect(hook).toMatchObject({ name: "real", url: "https://example.com/hook", userId: "alice" });
    const got = await fetch(`${base}/webhook/${hook.id}`, { headers });
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ id: hook.id, name: "real", url: "https://example.com/hook" });
    const anonymous = await fetch(`${base}/webhook/${hook.id}`);
    expect(anonymous.status).toBe(401);
    // The controller, in its pod, sees the Webhook and its Secret through its Role in this
    // namespace (the only place it may list/watch Secrets), adopts the Secret and says Ready.
    type Resource = {
      spec?: { sharedSecretRef?: { name: string } };
      status?: { conditions?: { type: string; status: string }[] };
      metadata: { uid: string; ownerReferences?: { uid: string; controller?: boolean }[] };
    };
    const get = async (kind: string, name: string) =>
      JSON.parse(await kubectl(["get", kind, name, "-n", NS, "-o", "json"])) as Resource;
    let webhook: Resource | undefined;
    await waitFor(
      "the Webhook Ready with its Secret adopted",
      async () => {
        webhook = await get("webhooks.livepeer.org", hook.id);
        const ready = webhook.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
        const ref = webhook.spec?.sharedSecretRef?.name;
        if (!ready || !ref) return false;
        const owners = (await get("secret", ref)).metadata.ownerReferences ?? [];
        return owners.some((o) => o.uid === webhook!.metadata.uid && o.controller);
      },
      60_000,
      () => JSON.stringify(webhook?.status),
    );
  });

  it.each([
    ["controller", "create", "statefulsets.apps", APP_NS, true],
    ["controller", "delete", "secrets", APP_NS, false],
    ["controller", "patch", "nodes", undefined, false],
    ["controller", "create", "pods", APP_NS, false],
    // Delivery signs with the webhook's shared secret: the API reads Secrets in its own namespace only.
    ["api", "get", "secrets", NS, true],
    ["api", "get", "secrets", APP_NS, false],
    ["api", "list", "orchestrators.livepeer.org", NS, false],
  ] as const)("the %s ServiceAccount may %s %s in %s: %s", async (sa, verb, resource, namespace, allowed) => {
    const args = ["auth", "can-i", verb, resource, `--as=system:serviceaccount:${NS}:${RELEASE}-${sa}`];
    if (namespace) args.push("-n", namespace);
    // `can-i` answers on stdout and exits 1 for "no": read both.
    const answer = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(
        cluster.cp.binaries.kubectl,
        [`--kubeconfig=${cluster.cp.kubeconfig}`, ...args],
        (err, stdout) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout.trim() }),
      ),
    );
    expect(answer).toEqual(allowed ? { code: 0, out: "yes" } : { code: 1, out: "no" });
  });

  it("helm upgrade with a changed value rolls the controller pods", async () => {
    const before = new Set((await pods("controller")).map((p) => p.metadata!.uid!));
    const r = await helm([
      "upgrade",
      RELEASE,
      chart,
      "-n",
      NS,
      "-f",
      valuesFile,
      "--set",
      "controller.logLevel=debug",
    ]);
    expect(r.code, r.out).toBe(0);
    const after = await waitPodsReady("controller", 2, (p) => !before.has(p.metadata!.uid!));
    for (const p of after) expect(p.spec?.containers[0]?.args).toContain("--log-level=debug");
  }, 300_000);

  it("helm uninstall leaves the CRDs (and the JWT Secret its keep policy names)", async () => {
    // The Orchestrator first: its pod runs on the real node, and the CRs outlive the release.
    await kubectl(["delete", "orchestrators.livepeer.org", "--all", "-n", APP_NS, "--wait=true"]);
    const r = await helm(["uninstall", RELEASE, "-n", NS, "--wait"]);
    expect(r.code, r.out).toBe(0);
    const selector = `app.kubernetes.io/instance=${RELEASE}`;
    await waitFor(
      "the release's pods to go",
      async () =>
        (await core.listNamespacedPod({ namespace: NS, labelSelector: selector })).items.length === 0,
      60_000,
    );
    const left = await kubectl([
      "get",
      "deployments,services,serviceaccounts,roles,rolebindings,poddisruptionbudgets,secrets,configmaps",
      "-n",
      NS,
      "-l",
      selector,
      "-o",
      "name",
    ]);
    expect(left.trim().split("\n").filter(Boolean)).toEqual([`secret/${RELEASE}-api-jwt`]);
    const kept = JSON.parse(
      await kubectl(["get", "secret", `${RELEASE}-api-jwt`, "-n", NS, "-o", "json"]),
    ) as {
      metadata: { annotations?: Record<string, string> };
    };
    expect(kept.metadata.annotations?.["helm.sh/resource-policy"]).toBe("keep");
    const cluster_ = await kubectl(["get", "clusterroles,clusterrolebindings", "-l", selector, "-o", "name"]);
    expect(cluster_.trim()).toBe("");
    const crds = await kubectl(["get", "crds", "-o", "name"]);
    expect(crds).toContain("orchestrators.livepeer.org");
    expect(crds).toContain("webhooks.livepeer.org");
  }, 180_000);

  it("stops cleanly: no kube-proxy chain is left in the host's iptables", async () => {
    await cluster.stop();
    expect(await kubeProxyChains()).toEqual([]);
  });
});
