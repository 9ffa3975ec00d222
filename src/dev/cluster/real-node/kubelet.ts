// Starts the kubelet in a mount namespace of its own, for one reason: its device manager
// listens on the fixed path /var/lib/kubelet/device-plugins/kubelet.sock whatever --root-dir
// says, so two real nodes on one machine would wipe each other's plugin sockets. In its
// namespace that path is a bind mount of the node's own device-plugins directory. Its root
// dir is made a shared mount first, so the pod volumes it mounts there still propagate to the
// host, where containerd bind-mounts them into containers.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { type ManagedProcess, startProcess } from "../process.ts";
import type { NodeLayout } from "./layout.ts";
import { mountsUnder } from "./mounts.ts";

export const KUBELET_DEVICE_PLUGIN_DIR = "/var/lib/kubelet/device-plugins";

function mount(args: string[]): void {
  try {
    execFileSync("mount", args, { stdio: ["ignore", "ignore", "pipe"] });
  } catch (err) {
    throw new Error(
      `mount ${args.join(" ")}: ${((err as { stderr?: Buffer }).stderr ?? "").toString().trim()}`,
    );
  }
}

export function startKubelet(
  layout: NodeLayout,
  binary: string,
  args: string[],
  logFile: string,
): ManagedProcess {
  const root = layout.kubelet.root;
  mkdirSync(root, { recursive: true });
  mkdirSync(layout.kubelet.devicePlugins, { recursive: true });
  mkdirSync(KUBELET_DEVICE_PLUGIN_DIR, { recursive: true }); // the mount point (removed when the last node stops)
  if (!mountsUnder(root).includes(root)) mount(["--bind", root, root]);
  mount(["--make-shared", root]);
  return startProcess(
    "kubelet",
    "unshare",
    [
      "--mount",
      "--propagation",
      "unchanged",
      "--",
      "/bin/sh",
      "-c",
      `mount --bind "$0" ${KUBELET_DEVICE_PLUGIN_DIR} && exec "$@"`,
      layout.kubelet.devicePlugins,
      binary,
      ...args,
    ],
    logFile,
  );
}
