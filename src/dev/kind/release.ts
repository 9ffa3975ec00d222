// What the suite expects on the cluster: our fake NVIDIA device plugin on the GPU workers (so the
// kubelets allocate nvidia.com/gpu), and the chart installed with our images.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { dump } from "js-yaml";
import { GPUS_PER_WORKER, type KindCluster } from "./cluster.ts";
import { DEVICE_PLUGIN_NAME, devicePluginDaemonSet } from "./device-plugin-daemonset.ts";
import { must } from "./exec.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** kind's default Service subnet: deliveries to the suite's receiver Service must be allowed there. */
const KIND_SERVICE_SUBNET = "10.96.0.0/16";
export const NS = "livepeer-system";
export const RELEASE = "lpo";

export async function installDevicePlugin(cluster: KindCluster, operatorImage: string): Promise<void> {
  const daemonSet = devicePluginDaemonSet({
    namespace: "kube-system",
    image: operatorImage,
    gpusPerNode: GPUS_PER_WORKER,
  });
  await cluster.kubectl(["apply", "-f", "-"], JSON.stringify(daemonSet));
  await cluster.kubectl([
    "rollout",
    "status",
    "daemonset",
    DEVICE_PLUGIN_NAME,
    "-n",
    "kube-system",
    "--timeout=180s",
  ]);
}

/** `helm install` with our images (never pulled) and deliveries allowed to kind's Service range; returns the values file. */
export async function helmInstall(
  cluster: KindCluster,
  helm: string,
  inNetns: (argv: readonly string[]) => string[],
  images: { operator: string; simulator: string },
  work: string,
  /** Our locally built node image (no local-path-provisioner), rather than a stock kindest/node. */
  ownNodeImage: boolean,
): Promise<string> {
  const [repository, tag] = images.operator.split(":");
  const valuesFile = path.join(work, "values.yaml");
  writeFileSync(
    valuesFile,
    dump({
      image: { repository, tag, pullPolicy: "Never" },
      nodeImage: images.simulator,
      api: {
        delivery: {
          allowCidrs: [KIND_SERVICE_SUBNET],
          // Our node image has no local-path-provisioner: kind's legacy host-path provisioner makes
          // root-owned directories the API (uid 65532) cannot write. An emptyDir, as on the real node.
          sqlite: { persistence: { enabled: !ownNodeImage } },
        },
      },
    }),
  );
  const chart = path.join(root, "deploy/helm/livepeer-operator");
  await must(
    inNetns([
      helm,
      "install",
      RELEASE,
      chart,
      "-n",
      NS,
      "--create-namespace",
      "-f",
      valuesFile,
      `--kubeconfig=${cluster.kubeconfig}`,
    ]),
  );
  return valuesFile;
}
