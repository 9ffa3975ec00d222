// The e2e suite's harness on this machine (vitest project `e2e-real-node`): a Go-built control
// plane with a real kubelet node (containerd, the fake NVIDIA device plugin, kube-proxy so pods
// use their in-cluster config), the locally built images imported into the node, and
// `helm install` of the chart. Hands the suite its context; stops everything after, checking
// that no kube-proxy chain is left in the host's iptables. Needs root.
import { execFile } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { dump } from "js-yaml";
import type { TestProject } from "vitest/node";
import { REAL_NODE_LABEL } from "../../../src/dev/cluster/real-node/real-node.ts";
import { kubeProxyChains, SERVICE_CIDR } from "../../../src/dev/cluster/real-node/service-proxy.ts";
import { buildImages } from "../../../src/dev/image/build.ts";
import { buildPreviousRelease } from "../../../src/dev/image/previous-release.ts";
import { type RealNodeCluster, startClusterWithRealNode } from "../../integration/support/real-node.ts";
import type { E2eContext } from "../support/context.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const chart = path.join(root, "deploy/helm/livepeer-operator");
const NS = "livepeer-system";
const RELEASE = "lpo";
/** The API's user in the chart's pods: the upgrade scenario's delivery store must be writable by it. */
const API_UID = 65532;
const log = (l: string) => process.stderr.write(`${l}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.getuid?.() !== 0) {
    throw new Error(
      "the e2e-real-node harness needs root: it runs a real kubelet node (containerd, mounts, network namespaces, kube-proxy's iptables rules); run as root or leave out --project e2e-real-node",
    );
  }
  const t0 = Date.now();
  let cluster: RealNodeCluster | undefined;
  let work: string | undefined;
  const stop = async () => {
    await cluster?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
    const chains = await kubeProxyChains();
    if (chains.length) throw new Error(`kube-proxy chains left in the host's iptables: ${chains.join(", ")}`);
  };
  try {
    cluster = await startClusterWithRealNode({ gpus: 2, serviceProxy: true, progress: log });
    log(`[e2e-real-node] control plane + real node in ${seconds(Date.now() - t0)}`);
    const t1 = Date.now();
    const built = await buildImages({ log });
    log(`[e2e-real-node] images in ${seconds(Date.now() - t1)}`);
    // The previous release for the upgrade scenario (scenarios/upgrade-from-release.ts): cached by
    // commit, so only the first run on a machine pays its npm install and image build.
    const t3 = Date.now();
    const previous = await buildPreviousRelease({ log });
    log(
      `[e2e-real-node] previous release ${previous.version} (${previous.commit.slice(0, 7)}) in ${seconds(Date.now() - t3)}` +
        (previous.cached
          ? " (cached)"
          : ` (worktree ${previous.seconds.worktree.toFixed(1)} s, npm ${previous.seconds.npmCi.toFixed(1)} s, images ${previous.seconds.images.toFixed(1)} s)`),
    );
    for (const image of [built.operator, built.simulator, previous.operator, previous.simulator]) {
      const names = await cluster.node.importImage(image.archive);
      if (!names.join(" ").includes(image.ref)) {
        throw new Error(`importing ${image.archive} gave ${names.join(", ")}, not ${image.ref}`);
      }
    }
    const [repository, tag] = built.operator.ref.split(":");
    const placement = {
      nodeSelector: { [REAL_NODE_LABEL]: "true" },
      tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
    };
    work = mkdtempSync(path.join(tmpdir(), "e2e-real-node-"));
    const valuesFile = path.join(work, "values.yaml");
    // The upgrade scenario's delivery store: the one node is this machine, so a directory here.
    const deliveryStore = path.join(work, "deliveries");
    mkdirSync(deliveryStore);
    chownSync(deliveryStore, API_UID, API_UID);
    writeFileSync(
      valuesFile,
      dump({
        image: { repository, tag, pullPolicy: "Never" },
        nodeImage: built.simulator.ref,
        controller: placement,
        // No storage provisioner on the local node: the SQLite delivery store on an emptyDir.
        api: {
          ...placement,
          delivery: { allowCidrs: [SERVICE_CIDR], sqlite: { persistence: { enabled: false } } },
        },
      }),
    );
    await cluster.kubectl(["create", "namespace", NS]);
    const t2 = Date.now();
    const { helm, kubeconfig } = { helm: cluster.cp.binaries.helm, kubeconfig: cluster.cp.kubeconfig };
    const install = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(
        helm,
        ["install", RELEASE, chart, "-n", NS, "-f", valuesFile, `--kubeconfig=${kubeconfig}`],
        { timeout: 300_000 },
        (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: stdout + stderr }),
      ),
    );
    if (install.code !== 0) throw new Error(`helm install failed:\n${install.out}`);
    log(`[e2e-real-node] helm install in ${seconds(Date.now() - t2)}; the suite checks its pods`);
    const context: E2eContext = {
      kubeconfig: cluster.cp.kubeconfig,
      kubectl: cluster.cp.binaries.kubectl,
      helm: cluster.cp.binaries.helm,
      chart,
      namespace: NS,
      release: RELEASE,
      valuesFile,
      operatorImage: built.operator.ref,
      simulatorImage: built.simulator.ref,
      placement,
      previous: {
        version: previous.version,
        commit: previous.commit,
        chart: previous.chart,
        operatorImage: previous.operator.ref,
        simulatorImage: previous.simulator.ref,
      },
      deliveryStore: { path: deliveryStore },
    };
    project.provide("e2e", context);
  } catch (err) {
    await stop().catch((e: Error) => log(`[e2e-real-node] ${e.message}`));
    throw err;
  }
  return stop;
}
