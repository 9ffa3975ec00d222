// schemathesis (PyPI), the independent OpenAPI fuzzer the API's contract test runs, in a virtual
// environment made with the host's Debian python3 and cached beside the Go-built binaries (one
// per schemathesis and Python version, shared by every clone). python3-venv comes from Debian on
// first use when we are root, as PostgreSQL does. Kept apart from src/dev/python (a Python >= 3.12
// environment for the SDK) so that the two can be merged later.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { aptInstall, installCommand, missingOnThisMachine } from "../debian/packages.ts";
import { cacheDir } from "../toolchain/binaries.ts";

/** Pinned: a new version may add checks, so the suite moves to it on purpose. */
export const SCHEMATHESIS_VERSION = "4.32.5";

/** Debian's interpreter, never one a version manager put first on the PATH. */
export const DEBIAN_PYTHON = "/usr/bin/python3";

const DEBIAN_PACKAGES = ["python3", "python3-venv"];

export interface Schemathesis {
  /** The virtual environment's directory. */
  dir: string;
  /** argv[0..] that runs the `schemathesis` command (append its arguments). */
  command: string[];
}

interface Run {
  code: number;
  output: string;
}

function run(argv: readonly string[], timeoutMs = 10 * 60_000): Promise<Run> {
  return new Promise((resolve) =>
    execFile(
      argv[0]!,
      argv.slice(1),
      { maxBuffer: 32 * 1024 * 1024, timeout: timeoutMs, env: { ...process.env, PIP_NO_INPUT: "1" } },
      (err, stdout, stderr) =>
        resolve({
          code: err ? (typeof err.code === "number" ? err.code : 1) : 0,
          output: `${stdout}${stderr}`,
        }),
    ),
  );
}

/** Where the environment for `version` under Python `python` ("3.11") lives. */
export function venvDir(version: string, python: string, cache = cacheDir()): string {
  return path.join(cache, "python-tools", `schemathesis-${version}-py${python}`);
}

/** The argv that runs schemathesis from the environment at `dir` (no console script: its shebang names the build directory). */
export function commandIn(dir: string): string[] {
  return [
    path.join(dir, "bin", "python3"),
    "-c",
    "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'schemathesis'; sys.exit(schemathesis())",
  ];
}

async function debianPython(log: (line: string) => void): Promise<string> {
  const missing = existsSync(DEBIAN_PYTHON)
    ? missingOnThisMachine(DEBIAN_PACKAGES, "schemathesis")
    : DEBIAN_PACKAGES;
  if (missing.length) {
    if (process.getuid?.() !== 0) {
      throw new Error(
        `schemathesis needs Debian's ${missing.join(" and ")}; install as root:\n  sudo ${installCommand(missing).join(" ")}`,
      );
    }
    await aptInstall(missing, (line) => log(`[schemathesis] ${line}`));
  }
  const v = await run([
    DEBIAN_PYTHON,
    "-c",
    "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')",
  ]);
  if (v.code !== 0 || !/^\d+\.\d+$/.test(v.output.trim())) {
    throw new Error(`${DEBIAN_PYTHON} does not run (exit ${v.code}): ${v.output.slice(-500)}`);
  }
  return v.output.trim();
}

/**
 * The cached environment, made on first use: a fresh venv in a temporary directory beside the
 * final one, pip install, then a rename, so a concurrent or interrupted install never leaves a
 * half-made environment where the next run looks.
 */
export async function ensureSchemathesis(log: (line: string) => void = () => {}): Promise<Schemathesis> {
  const python = await debianPython(log);
  const dir = venvDir(SCHEMATHESIS_VERSION, python);
  const stamp = path.join(dir, "installed.json");
  if (existsSync(stamp)) return { dir, command: commandIn(dir) };

  mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  const t0 = Date.now();
  log(
    `[schemathesis] installing schemathesis ${SCHEMATHESIS_VERSION} with ${DEBIAN_PYTHON} ${python} into ${dir}`,
  );
  try {
    const venv = await run([DEBIAN_PYTHON, "-m", "venv", tmp]);
    if (venv.code !== 0) {
      throw new Error(`${DEBIAN_PYTHON} -m venv failed (exit ${venv.code}):\n${venv.output.slice(-2000)}`);
    }
    const pip = await run([
      path.join(tmp, "bin", "python3"),
      "-m",
      "pip",
      "install",
      "--disable-pip-version-check",
      "--no-cache-dir",
      `schemathesis==${SCHEMATHESIS_VERSION}`,
    ]);
    if (pip.code !== 0) {
      throw new Error(
        `pip install schemathesis==${SCHEMATHESIS_VERSION} failed (exit ${pip.code}); PyPI must be reachable:\n${pip.output.slice(-2000)}`,
      );
    }
    writeFileSync(
      path.join(tmp, "installed.json"),
      `${JSON.stringify({ schemathesis: SCHEMATHESIS_VERSION, python, at: new Date().toISOString() })}\n`,
    );
    try {
      renameSync(tmp, dir);
    } catch (err) {
      // Another run finished first: use its environment.
      if (!existsSync(stamp)) throw err;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  log(`[schemathesis] installed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { dir, command: commandIn(dir) };
}
