// Debian's docker.io (dockerd, containerd, runc) and mmdebstrap (the kind node image's root
// filesystem), installed with apt-get when missing. Installing docker.io may start the machine's
// own dockerd (its postinst): we forbid that for the install's duration with a policy-rc.d, and
// stop any dockerd that still appeared during it (only those: a dockerd that was running before
// is not ours to stop).
import { execFile, execFileSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { stopPid } from "../../process/pids.ts";
import { installCommand, missingPackages } from "../cluster/real-node/host-packages.ts";

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

function dpkgStatus(packages: readonly string[]): string {
  try {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax
    return execFileSync("dpkg-query", ["-W", "-f=${Package} ${db:Status-Status}\n", ...packages], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch (err) {
    const stdout = (err as { stdout?: string }).stdout;
    if (typeof stdout === "string") return stdout; // exit 1 when a package is unknown to dpkg
    throw new Error(`dpkg-query is not available: the project's own Docker needs a Debian-based machine`);
  }
}

function apt(argv: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) =>
    execFile(
      argv[0]!,
      argv.slice(1),
      {
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
        maxBuffer: 32 * 1024 * 1024,
        timeout: 15 * 60_000,
      },
      (err, stdout, stderr) =>
        resolve({
          code: err ? (typeof err.code === "number" ? err.code : 1) : 0,
          output: `${stdout}${stderr}`,
        }),
    ),
  );
}

/** The Debian packages missing here (pure decision on dpkg's answer, so that callers can say why). */
export function missingDockerPackages(): string[] {
  return missingPackages(DOCKER_PACKAGES, dpkgStatus(DOCKER_PACKAGES));
}

export async function ensureDockerPackages(log: (line: string) => void): Promise<void> {
  const missing = missingDockerPackages();
  if (missing.length > 0) {
    const command = installCommand(missing);
    const t0 = Date.now();
    log(`installing Debian packages ${missing.join(", ")}: ${command.join(" ")}`);
    const before = pgrepDockerd();
    // policy-rc.d exit 101: "action forbidden", so invoke-rc.d starts no service. Only ours to remove
    // if we wrote it.
    const ownPolicy = !existsSync(POLICY_RC_D);
    if (ownPolicy) writeFileSync(POLICY_RC_D, "#!/bin/sh\nexit 101\n", { mode: 0o755 });
    try {
      const withLockWait = [command[0]!, "-o", "DPkg::Lock::Timeout=300", ...command.slice(1)];
      let result = await apt(withLockWait);
      if (result.code !== 0 && /Unable to locate package|has no installation candidate/.test(result.output)) {
        log("the package lists are stale or empty: apt-get update");
        await apt(["apt-get", "-o", "DPkg::Lock::Timeout=300", "update"]);
        result = await apt(withLockWait);
      }
      if (result.code !== 0) {
        throw new Error(
          `installing ${missing.join(", ")} failed (exit ${result.code}); run it by hand to see why:\n  ${command.join(" ")}\n${result.output.slice(-3000)}`,
        );
      }
    } finally {
      if (ownPolicy) rmSync(POLICY_RC_D, { force: true });
    }
    for (const pid of newDaemons(before, pgrepDockerd())) {
      log(`stopping the dockerd (pid ${pid}) that installing docker.io started: the kind tier runs its own`);
      await stopPid(pid, 10_000);
    }
    if (missing.includes("docker.io") && existsSync("/run/systemd/system")) {
      // Enabled by its postinst: it would start at the next boot beside ours.
      await apt(["systemctl", "disable", "docker.service", "docker.socket"]);
    }
    log(`installed ${missing.join(", ")} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const absent = REQUIRED_FILES.filter((f) => !existsSync(f));
  if (absent.length > 0) {
    throw new Error(
      `the packages are installed but ${absent.join(", ")} is missing; reinstall them:\n  ${installCommand(DOCKER_PACKAGES).join(" ")} --reinstall`,
    );
  }
}
