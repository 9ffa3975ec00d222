// Debian's docker.io (dockerd, containerd, runc) and mmdebstrap (the kind node image's root
// filesystem), installed with apt-get when missing. Installing docker.io may start the machine's
// own dockerd (its postinst): we forbid that for the install's duration with a policy-rc.d, and
// stop any dockerd that still appeared during it (only those: a dockerd that was running before
// is not ours to stop).
import { execFileSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { stopPid } from "../../process/pids.ts";
import { aptInstall, installCommand, missingOnThisMachine, runQuietly } from "../debian/packages.ts";

export const DOCKER_PACKAGES = ["docker.io", "mmdebstrap"];
export const REQUIRED_FILES = ["/usr/sbin/dockerd", "/usr/bin/containerd", "/usr/bin/mmdebstrap"];
const POLICY_RC_D = "/usr/sbin/policy-rc.d";

/** Pure: the pids in `pgrep -a dockerd`'s `after` answer that were not in `before`. */
export function newDaemons(before: string, after: string): number[] {
  const pids = (out: string) =>
    out
      .split("\n")
      .map((l) => Number.parseInt(l.trim().split(/\s+/)[0] ?? "", 10))
      .filter((pid) => Number.isInteger(pid) && pid > 0);
  const old = new Set(pids(before));
  return pids(after).filter((pid) => !old.has(pid));
}

function pgrepDockerd(): string {
  try {
    return execFileSync("pgrep", ["-a", "-x", "dockerd"], { encoding: "utf8" });
  } catch {
    return ""; // exit 1: none
  }
}

/** The Debian packages missing here (pure decision on dpkg's answer, so that callers can say why). */
export function missingDockerPackages(): string[] {
  return missingOnThisMachine(DOCKER_PACKAGES, "the project's own Docker");
}

export async function ensureDockerPackages(log: (line: string) => void): Promise<void> {
  const missing = missingDockerPackages();
  if (missing.length > 0) {
    const before = pgrepDockerd();
    // policy-rc.d exit 101: "action forbidden", so invoke-rc.d starts no service. Only ours to remove
    // if we wrote it.
    const ownPolicy = !existsSync(POLICY_RC_D);
    if (ownPolicy) writeFileSync(POLICY_RC_D, "#!/bin/sh\nexit 101\n", { mode: 0o755 });
    try {
      await aptInstall(missing, log);
    } finally {
      if (ownPolicy) rmSync(POLICY_RC_D, { force: true });
    }
    for (const pid of newDaemons(before, pgrepDockerd())) {
      log(`stopping the dockerd (pid ${pid}) that installing docker.io started: the kind tier runs its own`);
      await stopPid(pid, 10_000);
    }
    if (missing.includes("docker.io") && existsSync("/run/systemd/system")) {
      // Enabled by its postinst: it would start at the next boot beside ours.
      await runQuietly(["systemctl", "disable", "docker.service", "docker.socket"]);
    }
  }
  const absent = REQUIRED_FILES.filter((f) => !existsSync(f));
  if (absent.length > 0) {
    throw new Error(
      `the packages are installed but ${absent.join(", ")} is missing; reinstall them:\n  ${installCommand(DOCKER_PACKAGES).join(" ")} --reinstall`,
    );
  }
}
