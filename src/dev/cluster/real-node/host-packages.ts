// The Debian packages a real node runs on: containerd (with ctr and the runc v2 shim), runc and
// the CNI plugins (bridge, host-local, loopback in /usr/lib/cni), plus busybox-static for the
// test image. Installed on first use when we are root; otherwise the error names the command.
import { existsSync } from "node:fs";
import { aptInstall, installCommand, missingOnThisMachine } from "../../debian/packages.ts";

export const REAL_NODE_PACKAGES = [
  "containerd",
  "runc",
  "containernetworking-plugins",
  "busybox-static",
  "iptables",
];

/** Files the real node uses from those packages: checked after installing, so a broken install says so. */
export const REQUIRED_FILES = [
  "/usr/bin/containerd",
  "/usr/bin/ctr",
  "/usr/bin/containerd-shim-runc-v2",
  "/usr/sbin/runc",
  "/usr/lib/cni/bridge",
  "/usr/lib/cni/host-local",
  "/usr/lib/cni/loopback",
  "/bin/busybox",
  "/usr/sbin/iptables",
];

/**
 * Makes sure the packages are installed: installs the missing ones with apt-get when running as
 * root (progress on `progress`), otherwise throws with the exact command to run.
 */
export async function ensureHostPackages(
  progress: (line: string) => void,
  packages: readonly string[] = REAL_NODE_PACKAGES,
): Promise<void> {
  const missing = missingOnThisMachine(packages, "the real node");
  if (missing.length > 0) {
    if (process.getuid?.() !== 0) {
      throw new Error(
        `the real node needs the Debian packages ${missing.join(", ")}; install them as root:\n  sudo ${installCommand(missing).join(" ")}`,
      );
    }
    await aptInstall(missing, (line) => progress(`[real-node] ${line}`));
  }
  const absent = REQUIRED_FILES.filter((f) => !existsSync(f));
  if (absent.length > 0) {
    throw new Error(
      `the packages are installed but ${absent.join(", ")} is missing; reinstall them:\n  ${installCommand(packages).join(" ")} --reinstall`,
    );
  }
}
