// Debian packages the development tools install on first use, as root (the real node's
// containerd, the kind tier's docker.io, PostgreSQL for the delivery tests): which are missing
// (dpkg-query), and an apt-get install that waits for a concurrent apt's lock and refreshes stale
// package lists once. Failures name the command to run by hand.
import { execFile, execFileSync } from "node:child_process";

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

/** The packages of `wanted` missing on this machine; `forWhat` says who needs them when dpkg is absent. */
export function missingOnThisMachine(wanted: readonly string[], forWhat: string): string[] {
  let status: string;
  try {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax
    status = execFileSync("dpkg-query", ["-W", "-f=${Package} ${db:Status-Status}\n", ...wanted], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch (err) {
    // Exit 1 when some package is unknown to dpkg; stdout still lists the known ones.
    const stdout = (err as { stdout?: string }).stdout;
    if (typeof stdout !== "string") {
      throw new Error(
        `dpkg-query is not available: ${forWhat} needs a Debian-based machine (${(err as Error).message})`,
      );
    }
    status = stdout;
  }
  return missingPackages(wanted, status);
}

/** Runs a command non-interactively; its exit code and output, never a rejection. */
export function runQuietly(argv: readonly string[]): Promise<{ code: number; output: string }> {
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

/** `apt-get install` of `packages` (root), retried once after `apt-get update` when the lists are stale. */
export async function aptInstall(packages: readonly string[], log: (line: string) => void): Promise<void> {
  const command = installCommand(packages);
  const t0 = Date.now();
  log(`installing Debian packages ${packages.join(", ")}: ${command.join(" ")}`);
  // Wait for a concurrent apt/dpkg (another test starting) instead of failing on its lock.
  const withLockWait = [command[0]!, "-o", "DPkg::Lock::Timeout=300", ...command.slice(1)];
  let result = await runQuietly(withLockWait);
  if (result.code !== 0 && /Unable to locate package|has no installation candidate/.test(result.output)) {
    log("the package lists are stale or empty: apt-get update");
    await runQuietly(["apt-get", "-o", "DPkg::Lock::Timeout=300", "update"]);
    result = await runQuietly(withLockWait);
  }
  if (result.code !== 0) {
    throw new Error(
      `installing ${packages.join(", ")} failed (exit ${result.code}); run it by hand to see why:\n  ${command.join(" ")}\n${result.output.slice(-3000)}`,
    );
  }
  log(`installed ${packages.join(", ")} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
