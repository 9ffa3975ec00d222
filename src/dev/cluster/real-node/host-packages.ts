// The Debian packages a real node runs on: containerd (with ctr and the runc v2 shim), runc and
// the CNI plugins (bridge, host-local, loopback in /usr/lib/cni), plus busybox-static for the
// test image. Installed on first use when we are root; otherwise the error names the command.
import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

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

/** Packages of `wanted` that `dpkg-query -W -f='${Package} ${db:Status-Status}\n'` does not report installed. */
export function missingPackages(wanted: readonly string[], dpkgStatus: string): string[] {
  const installed = new Set(
    dpkgStatus
      .split("\n")
      .map((l) => l.trim().split(/\s+/))
      .filter(([, status]) => status === "installed")
      .map(([name]) => name),
  );
  return wanted.filter((p) => !installed.has(p));
}

export function installCommand(packages: readonly string[]): string[] {
  return ["apt-get", "install", "-y", "--no-install-recommends", ...packages];
}

function dpkgStatus(packages: readonly string[]): string {
  try {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax
    return execFileSync("dpkg-query", ["-W", "-f=${Package} ${db:Status-Status}\n", ...packages], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch (err) {
    // Exit 1 when some package is unknown to dpkg; stdout still lists the known ones.
    const stdout = (err as { stdout?: string }).stdout;
    if (typeof stdout === "string") return stdout;
    throw new Error(
      `dpkg-query is not available: the real node needs a Debian-based machine (${(err as Error).message})`,
    );
  }
}

function run(argv: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      argv[0]!,
      argv.slice(1),
      {
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
        maxBuffer: 32 * 1024 * 1024,
        timeout: 15 * 60_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/**
 * Makes sure the packages are installed: installs the missing ones with apt-get when running as
 * root (progress on `progress`), otherwise throws with the exact command to run.
 */
export async function ensureHostPackages(
  progress: (line: string) => void,
  packages: readonly string[] = REAL_NODE_PACKAGES,
): Promise<void> {
  const missing = missingPackages(packages, dpkgStatus(packages));
  if (missing.length > 0) {
    const command = installCommand(missing);
    if (process.getuid?.() !== 0) {
      throw new Error(
        `the real node needs the Debian packages ${missing.join(", ")}; install them as root:\n  sudo ${command.join(" ")}`,
      );
    }
    const t0 = Date.now();
    progress(`[real-node] installing Debian packages ${missing.join(", ")}: ${command.join(" ")}`);
    // Wait for a concurrent apt/dpkg (another real node starting) instead of failing on its lock.
    const withLockWait = [command[0]!, "-o", "DPkg::Lock::Timeout=300", ...command.slice(1)];
    let result = await run(withLockWait);
    if (result.code !== 0 && /Unable to locate package|has no installation candidate/.test(result.output)) {
      progress("[real-node] the package lists are stale or empty: apt-get update");
      await run(["apt-get", "-o", "DPkg::Lock::Timeout=300", "update"]);
      result = await run(withLockWait);
    }
    if (result.code !== 0) {
      throw new Error(
        `installing ${missing.join(", ")} failed (exit ${result.code}); run it by hand to see why:\n  ${command.join(" ")}\n${result.output.slice(-3000)}`,
      );
    }
    progress(`[real-node] installed ${missing.join(", ")} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const absent = REQUIRED_FILES.filter((f) => !existsSync(f));
  if (absent.length > 0) {
    throw new Error(
      `the packages are installed but ${absent.join(", ")} is missing; reinstall them:\n  ${installCommand(packages).join(" ")} --reinstall`,
    );
  }
}
