import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";
import { runKubectl, startControlPlane } from "../../dev/cluster/control-plane.ts";
import { applyFleet } from "../../dev/cluster/fleet.ts";
import { defaultFleet } from "../../dev/cluster/nodes.ts";
import { isAlive, stopPid } from "../../dev/cluster/process.ts";
import { REAL_NODE_LABEL, startRealNode } from "../../dev/cluster/real-node/real-node.ts";
import { teardownNode } from "../../dev/cluster/real-node/teardown.ts";
import { type Command, UsageError } from "../command.ts";

interface ClusterRecord {
  pid: number;
  kubeconfig: string;
  kubectl: string;
  dir: string;
  processes: Record<string, number>;
  /** Present when started with --real-node. */
  realNode?: { name: string; dir: string; subnet: string; gpus: string[] };
}

const recordFile = (base: string) => path.join(base, ".dev", "cluster.json");

function readRecord(base: string): ClusterRecord | undefined {
  try {
    return JSON.parse(readFileSync(recordFile(base), "utf8")) as ClusterRecord;
  } catch {
    return undefined;
  }
}

async function up(base: string, realNode: boolean, gpus: number): Promise<number> {
  const existing = readRecord(base);
  if (existing && isAlive(existing.pid)) {
    throw new UsageError(
      `a local control plane is already running (pid ${existing.pid}); stop it with 'livepeer-operator cluster down'`,
    );
  }
  const log = (l: string) => process.stderr.write(`${l}\n`);
  const dir = path.resolve(base, ".dev", "cluster");
  rmSync(dir, { recursive: true, force: true });
  const t0 = Date.now();
  const cp = await startControlPlane({ dir, progress: log });
  const kc = new KubeConfig();
  kc.loadFromFile(cp.kubeconfig);
  await applyFleet(kc, defaultFleet);
  // With kube-proxy: pods reach Services and the API server (in-cluster config), so `helm install` works.
  const node = realNode ? await startRealNode(cp, { gpus, progress: log, serviceProxy: true }) : undefined;
  const record: ClusterRecord = {
    pid: process.pid,
    kubeconfig: cp.kubeconfig,
    kubectl: cp.binaries.kubectl,
    dir,
    processes: {
      ...Object.fromEntries(cp.processes.map((p) => [p.name, p.pid])),
      ...(node
        ? {
            "real-node kubelet": node.pids.kubelet,
            "real-node containerd": node.pids.containerd,
            ...(node.serviceProxy && { "real-node kube-proxy": node.serviceProxy.pid }),
          }
        : {}),
    },
    ...(node
      ? {
          realNode: { name: node.nodeName, dir: node.dir, subnet: node.network.subnet, gpus: node.deviceIds },
        }
      : {}),
  };
  writeFileSync(recordFile(base), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  log(
    `[cluster] ready in ${((Date.now() - t0) / 1000).toFixed(1)} s. Try:\n  export KUBECONFIG=${cp.kubeconfig}\n  ${cp.binaries.kubectl} get nodes -L nvidia.com/gpu.product,${REAL_NODE_LABEL}`,
  );
  const ready = {
    kubeconfig: cp.kubeconfig,
    kubectl: cp.binaries.kubectl,
    helm: cp.binaries.helm,
    ...(node
      ? {
          realNode: {
            name: node.nodeName,
            subnet: node.network.subnet,
            gpus: node.deviceIds.length,
            containerdSocket: node.containerdSocket,
          },
        }
      : {}),
  };
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  log("[cluster] stopping");
  await cp.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(recordFile(base), { force: true });
  log("[cluster] stopped");
  return 0;
}

async function down(base: string): Promise<number> {
  const record = readRecord(base);
  if (!record || !isAlive(record.pid)) {
    rmSync(recordFile(base), { force: true });
    process.stderr.write("no local control plane is running\n");
    return 0;
  }
  await stopPid(record.pid, 60_000);
  for (const pid of Object.values(record.processes)) await stopPid(pid);
  // Normally the 'up' process tore the real node down; if it could not, do it here.
  if (record.realNode) await teardownNode(record.realNode.dir, (l) => process.stderr.write(`${l}\n`));
  rmSync(recordFile(base), { force: true });
  process.stderr.write(`stopped the local control plane (pid ${record.pid})\n`);
  return 0;
}

async function status(base: string, json: boolean): Promise<number> {
  const record = readRecord(base);
  const running = !!record && isAlive(record.pid);
  const components = record
    ? Object.fromEntries(
        Object.entries(record.processes).map(([n, pid]) => [n, isAlive(pid) ? "running" : "stopped"]),
      )
    : {};
  let nodes = "";
  if (running) {
    nodes = await runKubectl(record.kubectl, record.kubeconfig, [
      "get",
      "nodes",
      "-L",
      `nvidia.com/gpu.product,nvidia.com/gpu.count,${REAL_NODE_LABEL}`,
    ]).catch((e: Error) => `(API server not answering: ${e.message})`);
  }
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ running, kubeconfig: record?.kubeconfig, pid: record?.pid, components, realNode: record?.realNode })}\n`,
    );
  } else if (!running) {
    process.stdout.write("local control plane: not running (start it with 'livepeer-operator cluster up')\n");
  } else {
    process.stdout.write(
      `local control plane: running (pid ${record.pid})\nkubeconfig: ${record.kubeconfig}\n`,
    );
    for (const [n, s] of Object.entries(components)) process.stdout.write(`  ${n.padEnd(24)} ${s}\n`);
    if (record.realNode) {
      const r = record.realNode;
      process.stdout.write(
        `real node: ${r.name} (pods on ${r.subnet}, ${r.gpus.length} fake GPUs, dir ${r.dir})\n`,
      );
    }
    process.stdout.write(`\n${nodes}`);
  }
  return running ? 0 : 1;
}

export const command: Command = {
  name: "cluster",
  summary:
    "Run the local control plane with fake GPU nodes (and a real node with --real-node): up | down | status.",
  usage: `Usage: livepeer-operator cluster up|down|status [--dir DIR] [--json] [--real-node [--gpus N]]

  up      start etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok with fake
          GPU nodes on loopback, print 'READY {"kubeconfig": ...}', and stay up until Ctrl-C
          (binaries are built from the Go module proxy on first use and cached)
  down    stop a control plane started by 'up' from another terminal
  status  show whether it runs, its components and nodes (exit 1 when not running)

Options:
  --dir DIR     where .dev/ lives (default: the current directory)
  --json        status as JSON
  --real-node   also run a real node (root only): kubelet + containerd + runc + CNI on this
                machine as node 'localhost', with a fake NVIDIA device plugin advertising
                --gpus N (default 2) nvidia.com/gpu; pods on it get real containers and pod IPs
                from a private bridge subnet. Installs Debian's containerd, runc,
                containernetworking-plugins and busybox-static when missing, builds the kubelet
                and kube-proxy on first use. kube-proxy (iptables) serves Services to its pods
                and this host, the API server's included, so in-cluster clients work; one such
                node per machine at a time. Import images with:
                  ctr --address <containerdSocket from READY> -n k8s.io images import IMAGE.tar`,
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        dir: { type: "string", default: "." },
        json: { type: "boolean", default: false },
        "real-node": { type: "boolean", default: false },
        gpus: { type: "string", default: "2" },
      },
    });
    const gpus = Number(values.gpus);
    if (!Number.isInteger(gpus) || gpus < 1 || gpus > 16) {
      throw new UsageError(`--gpus must be a whole number from 1 to 16, got '${values.gpus}'`);
    }
    if (values.gpus !== "2" && !values["real-node"]) throw new UsageError("--gpus needs --real-node");
    const base = path.resolve(values.dir!);
    switch (positionals[0]) {
      case "up":
        return up(base, values["real-node"]!, gpus);
      case "down":
        return down(base);
      case "status":
        return status(base, values.json!);
      default:
        throw new UsageError("expected 'up', 'down' or 'status'; see 'livepeer-operator cluster --help'");
    }
  },
};
