// The node's containerd: its own config, root, state and socket under the node's directory,
// moved into the node's cgroups before it starts anything; images come in with `ctr import`.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { logTail, type ManagedProcess, startProcess, waitFor } from "../process.ts";
import { joinCgroups } from "./cgroups.ts";
import { cniConflist, containerdConfig } from "./containerd-config.ts";
import type { NodeLayout, NodeNetwork } from "./layout.ts";

export function ctr(socket: string, args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "ctr",
      ["--address", socket, "--namespace", "k8s.io", ...args],
      { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`ctr ${args.join(" ")} failed: ${(stderr || err.message).trim()}`));
        else resolve(stdout);
      },
    );
  });
}

export async function startContainerd(
  layout: NodeLayout,
  network: NodeNetwork,
  sandboxImage: string,
  cgroupDirs: string[],
  /** Routed from the pods to the host (a node running kube-proxy): see cniConflist. */
  serviceCidr?: string,
): Promise<ManagedProcess> {
  const c = layout.containerd;
  for (const d of [c.root, c.state, c.opt, c.runcRoot, layout.cni.confDir, layout.cni.ipamDir, layout.logs]) {
    mkdirSync(d, { recursive: true });
  }
  writeFileSync(c.config, containerdConfig(layout, sandboxImage));
  writeFileSync(
    path.join(layout.cni.confDir, "10-livepeer-operator.conflist"),
    cniConflist(layout, network, serviceCidr),
  );
  const proc = startProcess(
    "containerd",
    "/usr/bin/containerd",
    ["--config", c.config, "--log-level", "warn"],
    path.join(layout.logs, "real-node-containerd.log"),
  );
  // Before it can start a shim: shims inherit its cgroups, and runc puts containers below them.
  joinCgroups(proc.pid, cgroupDirs);
  await waitFor(
    "containerd to serve its socket",
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`containerd exited with ${proc.child.exitCode}`);
      return existsSync(c.socket) && (await ctr(c.socket, ["version"], 5_000).then(() => true));
    },
    30_000,
    () => logTail(proc.logFile),
  );
  return proc;
}

/** Imports a docker-archive or OCI tarball into the node's CRI image store. */
export async function importImage(socket: string, archive: string): Promise<string[]> {
  if (!existsSync(archive)) throw new Error(`importImage: no such archive ${archive}`);
  const out = await ctr(socket, ["images", "import", archive], 300_000);
  // "unpacking docker.io/x/y:tag (sha256:...)...done"
  return [...out.matchAll(/unpacking (\S+)/g)].map((m) => m[1]!);
}
