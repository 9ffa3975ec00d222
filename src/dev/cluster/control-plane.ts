// The local control plane: real etcd, kube-apiserver, kube-controller-manager, kube-scheduler
// and the kwok controller as plain processes on loopback, with fake GPU nodes. Used by
// `livepeer-operator cluster up`, the embedded default (`npm start`) and the test suite.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { ensureBinaries, kwokDataDir } from "../toolchain/binaries.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import { KWOK_LOG_CRDS, kwokCrdFiles, writeKwokConfig } from "./kwok.ts";
import { generatePki, type Pki } from "./pki.ts";
import { claimPodCidr } from "./pod-cidr.ts";
import { freePorts } from "./ports.ts";
import { logTail, type ManagedProcess, startProcess, stopPid, waitFor } from "./process.ts";
import { startReaper } from "./reaper.ts";

export interface ControlPlaneOptions {
  /** Where state, certificates and logs go; a temp dir (removed on stop) when absent. */
  dir?: string;
  /** Progress lines (default: stderr). */
  progress?: (line: string) => void;
  /** Pod CIDR for fake pods: inside 127.0.0.0/8 so a local process can serve a pod's IP. */
  podCidr?: string;
}

export interface ControlPlane {
  dir: string;
  kubeconfig: string;
  server: string;
  pki: Pki;
  binaries: Record<
    "etcd" | "kube-apiserver" | "kube-controller-manager" | "kube-scheduler" | "kubectl" | "kwok" | "helm",
    string
  >;
  processes: ManagedProcess[];
  /** Milliseconds from start() to a ready API server with kwok running (binaries resolved). */
  startupMs: number;
  /** Registers another process to stop with the control plane if this process dies abruptly. */
  track(pid: number): void;
  /** Forgets a tracked process that was stopped already. */
  untrack(pid: number): void;
  /** A command (argv) the watchdog runs after stopping the processes if this process dies abruptly. */
  trackCleanup(argv: string[]): void;
  /** Runs `fn` first when stop() is called (e.g. a real node's clean shutdown). */
  beforeStop(fn: () => Promise<void>): void;
  stop(): Promise<void>;
}

const COMPONENTS = [
  "etcd",
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kubectl",
  "kwok",
  "helm",
] as const;

export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const progress = opts.progress ?? ((l: string) => process.stderr.write(`${l}\n`));
  const binaries = await ensureBinaries(COMPONENTS, progress);
  const started = Date.now();
  const temporary = !opts.dir;
  const dir = opts.dir ? path.resolve(opts.dir) : mkdtempSync(path.join(os.tmpdir(), "lpo-cluster-"));
  for (const sub of ["pki", "logs", "etcd"]) mkdirSync(path.join(dir, sub), { recursive: true });
  const logs = (name: string) => path.join(dir, "logs", `${name}.log`);
  const reaper = startReaper(dir, temporary);
  // Released on stop; a killed process's claim is taken over by the next control plane.
  const podCidr = opts.podCidr ? { cidr: opts.podCidr, release: () => undefined } : claimPodCidr();
  const processes: ManagedProcess[] = [];
  const track = (p: ManagedProcess) => {
    processes.push(p);
    reaper.track(p.pid);
    return p;
  };

  let stopped = false;
  const stopHooks: (() => Promise<void>)[] = [];
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const hook of stopHooks.splice(0).reverse()) {
      await hook().catch((err: Error) => progress(`[cluster] ${err.message}`));
    }
    // Reverse order: the API server's clients first, etcd last.
    for (const p of [...processes].reverse()) await stopPid(p.pid);
    reaper.release();
    if (temporary) rmSync(dir, { recursive: true, force: true });
    podCidr.release();
  };

  try {
    const [etcdPort, etcdPeerPort, apiPort, kwokPort] = await freePorts(4);
    const pki = generatePki(path.join(dir, "pki"));
    const server = `https://127.0.0.1:${apiPort}`;
    const kubeconfig = path.join(dir, "kubeconfig");
    writeKubeconfig(kubeconfig, server, pki.caCert, { clientCert: pki.adminCert, clientKey: pki.adminKey });

    progress("[cluster] starting etcd");
    const etcd = track(
      startProcess(
        "etcd",
        binaries.etcd,
        [
          "--name=default",
          `--data-dir=${path.join(dir, "etcd")}`,
          `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
          `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
          `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
          `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
          `--initial-cluster=default=http://127.0.0.1:${etcdPeerPort}`,
          "--unsafe-no-fsync",
          "--quota-backend-bytes=4294967296",
          "--log-level=warn",
        ],
        logs("etcd"),
      ),
    );
    await waitFor(
      "etcd to become healthy",
      async () => (await fetch(`http://127.0.0.1:${etcdPort}/health`)).ok,
      30_000,
      () => logTail(etcd.logFile),
    );

    progress("[cluster] starting kube-apiserver");
    const apiserver = track(
      startProcess(
        "kube-apiserver",
        binaries["kube-apiserver"],
        [
          `--etcd-servers=http://127.0.0.1:${etcdPort}`,
          "--bind-address=127.0.0.1",
          "--advertise-address=127.0.0.1",
          `--secure-port=${apiPort}`,
          `--tls-cert-file=${pki.apiserverCert}`,
          `--tls-private-key-file=${pki.apiserverKey}`,
          `--client-ca-file=${pki.caCert}`,
          `--service-account-issuer=https://kubernetes.default.svc.cluster.local`,
          `--service-account-key-file=${pki.serviceAccountPub}`,
          `--service-account-signing-key-file=${pki.serviceAccountKey}`,
          `--kubelet-client-certificate=${pki.kubeletClientCert}`,
          `--kubelet-client-key=${pki.kubeletClientKey}`,
          "--kubelet-preferred-address-types=Hostname",
          "--authorization-mode=Node,RBAC",
          "--service-cluster-ip-range=10.96.0.0/16",
          "--endpoint-reconciler-type=none",
          "--allow-privileged=true",
          "--profiling=false",
          "--event-ttl=1h",
        ],
        logs("kube-apiserver"),
      ),
    );
    await waitFor(
      "kube-apiserver /readyz",
      async () => (await getWithCert(`${server}/readyz`, pki)).status === 200,
      60_000,
      () => logTail(apiserver.logFile),
    );

    const kubectl = (args: string[]) => runKubectl(binaries.kubectl, kubeconfig, args);
    // kwok's Logs CRDs must exist before kwok starts watching them.
    await kubectl(["apply", "--server-side", ...kwokCrdFiles(kwokDataDir()).flatMap((f) => ["-f", f])]);

    progress("[cluster] starting kube-controller-manager, kube-scheduler and kwok");
    track(
      startProcess(
        "kube-controller-manager",
        binaries["kube-controller-manager"],
        [
          `--kubeconfig=${kubeconfig}`,
          "--leader-elect=false",
          "--secure-port=0",
          "--use-service-account-credentials=true",
          `--service-account-private-key-file=${pki.serviceAccountKey}`,
          `--root-ca-file=${pki.caCert}`,
          `--cluster-signing-cert-file=${pki.caCert}`,
          `--cluster-signing-key-file=${pki.caKey}`,
          // nodelifecycle stays: it lifts the not-ready taint once kwok reports the node Ready.
          "--controllers=*,-node-ipam-controller,-cloud-node-lifecycle-controller,-service-lb-controller,-node-route-controller",
          "--concurrent-gc-syncs=5",
          // Beta (off by default in 1.36), on in some clusters: a StatefulSet whose only pod is
          // unavailable then never replaces it with a newer revision (kubernetes#67250's shape,
          // which the default policy hits too). On here, so the operator's stuck-rollout
          // recovery is what rolls a fixed spec out, as it must be on such clusters.
          "--feature-gates=MaxUnavailableStatefulSet=true",
        ],
        logs("kube-controller-manager"),
      ),
    );
    track(
      startProcess(
        "kube-scheduler",
        binaries["kube-scheduler"],
        [`--kubeconfig=${kubeconfig}`, "--leader-elect=false", "--secure-port=0"],
        logs("kube-scheduler"),
      ),
    );
    const kwokConfig = path.join(dir, "kwok.yaml");
    writeKwokConfig(kwokDataDir(), kwokConfig);
    track(
      startProcess(
        "kwok",
        binaries.kwok,
        [
          `--kubeconfig=${kubeconfig}`,
          `--config=${kwokConfig}`,
          "--manage-all-nodes=false",
          "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
          `--enable-crds=${KWOK_LOG_CRDS.join(",")}`,
          `--cidr=${podCidr.cidr}`,
          "--node-ip=127.0.0.1",
          "--node-name=localhost",
          `--node-port=${kwokPort}`,
          `--server-address=127.0.0.1:${kwokPort}`,
          `--tls-cert-file=${pki.kwokCert}`,
          `--tls-private-key-file=${pki.kwokKey}`,
          "--node-lease-duration-seconds=40",
        ],
        logs("kwok"),
      ),
    );

    const cp: ControlPlane = {
      dir,
      kubeconfig,
      server,
      pki,
      binaries,
      processes,
      startupMs: 0,
      track: (pid) => reaper.track(pid),
      untrack: (pid) => reaper.untrack(pid),
      trackCleanup: (argv) => reaper.trackCleanup(argv),
      beforeStop: (fn) => stopHooks.push(fn),
      stop,
    };
    writeFileSync(
      path.join(dir, "pids.json"),
      JSON.stringify(Object.fromEntries(processes.map((p) => [p.name, p.pid])), null, 2),
    );
    cp.startupMs = Date.now() - started;
    return cp;
  } catch (err) {
    await stop();
    throw err;
  }
}

function getWithCert(url: string, pki: Pki): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      {
        ca: readFileSync(pki.caCert),
        cert: readFileSync(pki.adminCert),
        key: readFileSync(pki.adminKey),
        timeout: 2000,
      },
      (res) => {
        let body = "";
        res.on("data", (c) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("timeout")));
  });
}

/** Runs kubectl against a kubeconfig; rejects with kubectl's stderr. */
export function runKubectl(
  kubectl: string,
  kubeconfig: string,
  args: string[],
  input?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      kubectl,
      [`--kubeconfig=${kubeconfig}`, ...args],
      { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`kubectl ${args.join(" ")} failed: ${stderr || err.message}`));
        else resolve(stdout);
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}
