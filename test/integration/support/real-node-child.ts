// A process that starts a control plane with a real node and a running GPU pod, prints
// `READY {"cpDir", "nodeDir"}` and waits to be killed: tests SIGKILL it to prove the control
// plane's watchdog tears the real node down when its parent dies without stopping it.
import { CoreV1Api } from "@kubernetes/client-node";
import { waitFor } from "../../../src/dev/cluster/process.ts";
import { busyboxImageArchive } from "../../../src/dev/cluster/real-node/images.ts";
import { startClusterWithRealNode } from "./real-node.ts";

const cluster = await startClusterWithRealNode({ gpus: 1, progress: (l) => process.stderr.write(`${l}\n`) });
await cluster.node.importImage(busyboxImageArchive());
const core = cluster.kc.makeApiClient(CoreV1Api);
await waitFor(
  "the default ServiceAccount",
  async () => !!(await core.readNamespacedServiceAccount({ name: "default", namespace: "default" })),
  30_000,
);
await core.createNamespacedPod({
  namespace: "default",
  body: {
    metadata: { name: "orphan" },
    spec: {
      nodeSelector: { "livepeer.org/real-node": "true" },
      tolerations: [{ key: "nvidia.com/gpu", operator: "Exists" }],
      containers: [
        {
          name: "main",
          image: "livepeer-operator/busybox:dev",
          imagePullPolicy: "Never",
          command: ["/bin/sh", "-c", "exec httpd -f -p 8080 -h /www"],
          resources: { limits: { "nvidia.com/gpu": "1" } },
        },
      ],
    },
  },
});
await waitFor(
  "the pod to run",
  async () =>
    (await core.readNamespacedPod({ name: "orphan", namespace: "default" })).status?.phase === "Running",
  60_000,
);
process.stdout.write(`READY ${JSON.stringify({ cpDir: cluster.cp.dir, nodeDir: cluster.node.dir })}\n`);
setInterval(() => undefined, 1 << 30);
