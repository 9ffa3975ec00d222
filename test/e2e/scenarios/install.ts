// The release is up: the controller and API pods pass their own probes as non-root on a
// read-only root, reach the API server through the in-cluster `kubernetes` Service, and one
// controller leads. Also starts the suite's receiver pod (webhook deliveries, in-cluster HTTP).
import { describe, expect, it } from "vitest";
import { waitFor } from "../../../src/dev/cluster/process.ts";
import {
  APP_NS,
  appNamespaceReady,
  core,
  ctx,
  getJson,
  isReady,
  kubectl,
  nodeIn,
  RECEIVER,
  RECEIVER_PORT,
  waitPodsReady,
} from "../support/cluster.ts";

/** Logs each request it gets as one JSON line ({path, headers, body}) and answers 200. */
const RECEIVER_SCRIPT = `require("http").createServer((req, res) => { const c = []; req.on("data", (d) => c.push(d)); req.on("end", () => { console.log(JSON.stringify({ path: req.url, headers: req.headers, body: Buffer.concat(c).toString() })); res.end("ok"); }); }).listen(${RECEIVER_PORT})`;

describe("the installed chart", () => {
  it("runs every controller and API replica the release asks for, passing their own probes (non-root, read-only root)", async () => {
    // As many Ready pods as each Deployment asks for: the chart's defaults are 2 controllers
    // (leader election keeps one active) and 1 API (the SQLite delivery store; several need
    // PostgreSQL), and a values file may ask for others.
    const wanted = async (component: string) =>
      (
        await getJson<{ spec: { replicas: number } }>(
          "deployment",
          `${ctx.release}-${component}`,
          ctx.namespace,
        )
      ).spec.replicas;
    const controllerReplicas = await wanted("controller");
    const apiReplicas = await wanted("api");
    expect(
      controllerReplicas,
      "leader election needs a second controller to mean anything",
    ).toBeGreaterThanOrEqual(2);
    expect(apiReplicas).toBeGreaterThanOrEqual(1);
    const controllers = await waitPodsReady("controller", controllerReplicas);
    const apis = await waitPodsReady("api", apiReplicas);
    for (const p of [...controllers, ...apis]) {
      expect(p.status?.podIP).toBeTruthy();
      const c = p.spec!.containers[0]!;
      expect(c.readinessProbe?.httpGet?.path).toBe("/readyz");
      expect(c.securityContext?.readOnlyRootFilesystem).toBe(true);
      const name = p.metadata!.name!;
      const identity = JSON.parse(
        await nodeIn(
          name,
          ctx.namespace,
          "console.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid() }))",
        ),
      );
      expect(identity).toEqual({ uid: 65532, gid: 65532 });
      const write = await nodeIn(
        name,
        ctx.namespace,
        "try { require('fs').writeFileSync('/app/x', ''); console.log('wrote') } catch (e) { console.log(e.code) }",
      );
      expect(write).toBe("EROFS");
    }
    // The in-cluster config: the `kubernetes` Service's ClusterIP.
    const kubernetes = await getJson<{ spec: { clusterIP: string } }>("service", "kubernetes", "default");
    const host = await nodeIn(
      controllers[0]!.metadata!.name!,
      ctx.namespace,
      "console.log(process.env.KUBERNETES_SERVICE_HOST)",
    );
    expect(host).toBe(kubernetes.spec.clusterIP);
    const leases = JSON.parse(await kubectl(["get", "leases", "-n", ctx.namespace, "-o", "json"])) as {
      items: { spec?: { holderIdentity?: string } }[];
    };
    const holders = leases.items.map((l) => l.spec?.holderIdentity ?? "");
    expect(holders.some((h) => controllers.some((p) => h.includes(p.metadata!.name!)))).toBe(true);
  }, 300_000);

  it("the suite's receiver pod runs where real workloads go, behind a Service", async () => {
    await appNamespaceReady();
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: RECEIVER, namespace: APP_NS, labels: { app: RECEIVER } },
      spec: {
        ...ctx.placement,
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: "receiver",
            image: ctx.operatorImage,
            imagePullPolicy: "IfNotPresent",
            command: ["/usr/local/bin/node", "-e", RECEIVER_SCRIPT],
            ports: [{ containerPort: RECEIVER_PORT }],
          },
        ],
      },
    };
    // Deliveries go to its Service by name (an IP literal of an internal range is refused at
    // creation; a name is checked against the API's delivery.allowCidrs when it connects).
    const service = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: RECEIVER, namespace: APP_NS },
      spec: { selector: { app: RECEIVER }, ports: [{ port: RECEIVER_PORT, targetPort: RECEIVER_PORT }] },
    };
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({ apiVersion: "v1", kind: "List", items: [pod, service] }),
    );
    let last = "";
    await waitFor(
      "the receiver pod Ready",
      async () => {
        const p = await core.readNamespacedPod({ name: RECEIVER, namespace: APP_NS });
        last = JSON.stringify(p.status?.containerStatuses?.map((c) => c.state) ?? p.status?.conditions);
        return p.status?.phase === "Running" && isReady(p);
      },
      120_000,
      () => last,
    );
  }, 180_000);
});
