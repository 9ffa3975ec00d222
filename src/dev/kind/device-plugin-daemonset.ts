// The fake NVIDIA device plugin on a kind cluster's GPU workers: a DaemonSet running our own
// plugin (../device-plugin) from the operator image, so each worker's kubelet advertises and
// allocates `nvidia.com/gpu` as it would with NVIDIA's plugin. Pure: the manifest only.

export const DEVICE_PLUGIN_NAME = "lpo-fake-nvidia-device-plugin";
const PLUGIN_DIR = "/var/lib/kubelet/device-plugins";

export function devicePluginDaemonSet(o: { namespace: string; image: string; gpusPerNode: number }) {
  const labels = { "app.kubernetes.io/name": DEVICE_PLUGIN_NAME };
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: DEVICE_PLUGIN_NAME, namespace: o.namespace, labels },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          nodeSelector: { "nvidia.com/gpu.present": "true" },
          tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
          containers: [
            {
              name: "plugin",
              image: o.image,
              imagePullPolicy: "IfNotPresent",
              command: [
                "/usr/local/bin/node",
                "/app/dist/dev/kind/device-plugin-main.js",
                `--gpus=${o.gpusPerNode}`,
                `--plugin-dir=${PLUGIN_DIR}`,
              ],
              env: [{ name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }],
              // The kubelet's socket directory is root's.
              securityContext: { runAsUser: 0, runAsGroup: 0 },
              volumeMounts: [{ name: "device-plugins", mountPath: PLUGIN_DIR }],
            },
          ],
          volumes: [{ name: "device-plugins", hostPath: { path: PLUGIN_DIR, type: "Directory" } }],
        },
      },
    },
  };
}
