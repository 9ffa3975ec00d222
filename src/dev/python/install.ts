// Installing the Python SDK environment, step by step, into a staging folder: the trixie root
// (mmdebstrap), the virtual environment and pip's pins inside it, then the environment check.
// Every step that fails throws an Error naming the exact command, ready to run by hand.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { isAlive } from "../../process/pids.ts";
import { aptInstall, missingOnThisMachine } from "../debian/packages.ts";
import { dnsSettings, type HostView, pipSettings } from "./host-settings.ts";
import { type Bind, type EnvVar, inRootCommand, type RootCommand, runCommand, shellWord } from "./in-root.ts";
import { debianMirror, here, IN_ROOT, mmdebstrapCommand, REQUIREMENTS_FILE, type Recipe } from "./recipe.ts";

/** What the environment check (check-environment.py) reports. */
export interface InstalledFacts {
  ok: boolean;
  python: string;
  executable: string;
  packages: Record<string, string>;
  protobufBackend: string;
  h264Encoder: string;
  encodedBytes: number;
  sdkExports: number;
}

export const CHECK_SCRIPT = path.join(here, "check-environment.py");

/** The environment every program in the root gets (nothing else from the host). */
export const BASE_ENV: EnvVar[] = [
  { name: "PATH", value: `${IN_ROOT.venv}/bin:/usr/local/bin:/usr/bin:/bin` },
  { name: "HOME", value: "/root" },
  { name: "LANG", value: "C.UTF-8" },
  // Scripts come from read-only mounts of the repo: no __pycache__ attempts.
  { name: "PYTHONDONTWRITEBYTECODE", value: "1" },
  { name: "PYTHONUNBUFFERED", value: "1" },
];

export function hostView(): HostView {
  return {
    env: process.env,
    home: os.homedir(),
    exists: existsSync,
    read: (f) => {
      try {
        return readFileSync(f, "utf8");
      } catch {
        return undefined;
      }
    },
  };
}

function tail(text: string, chars = 3000): string {
  const t = text.trim();
  return t.length > chars ? `...${t.slice(-chars)}` : t;
}

/** Runs one step; a failure throws with the command to run by hand and the output's tail. */
async function step(
  what: string,
  command: RootCommand,
  timeoutMs: number,
  ctx: InstallContext,
): Promise<string> {
  const { log, processes } = ctx;
  const t0 = Date.now();
  log(`${what}...`);
  let pid: number | undefined;
  const r = await runCommand(command.argv, {
    timeoutMs,
    onStart: (p) => {
      pid = p;
      processes?.track(p);
    },
  });
  if (pid !== undefined) processes?.untrack(pid);
  if (r.code !== 0) {
    const why = r.timedOut ? `timed out after ${timeoutMs / 1000} s` : `exit ${r.code}`;
    throw new Error(
      `Python SDK environment: ${what} failed (${why}). Run it by hand (as root) to see why:\n  ${command.shown}\n--- its output ---\n${tail(`${r.stdout}\n${r.stderr}`)}`,
    );
  }
  log(`${what}: done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return r.stdout;
}

function plain(argv: string[]): RootCommand {
  return { argv, shown: argv.map(shellWord).join(" ") };
}

/** mmdebstrap on the host (a Debian package), installed on first use. */
async function ensureMmdebstrap(log: (line: string) => void): Promise<void> {
  if (missingOnThisMachine(["mmdebstrap"], "the Python SDK environment").length === 0) return;
  await aptInstall(["mmdebstrap"], log);
}

/** Paths under `dir` that are mount points in this mount namespace (a root must never be deleted with some). */
function mountsUnder(dir: string): string[] {
  let info = "";
  try {
    info = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return [];
  }
  return info
    .split("\n")
    .map((l) => l.split(" ")[4] ?? "")
    .filter((p) => p === dir || p.startsWith(`${dir}/`));
}

/** Deletes a folder holding a root, refusing loudly when something is mounted inside it. */
export function removeRoot(dir: string): void {
  const mounted = mountsUnder(dir);
  if (mounted.length > 0) {
    throw new Error(
      `refusing to delete ${dir}: mounts remain inside it (${mounted.join(", ")}); unmount them first:\n  umount -R ${shellWord(dir)}`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Staging folders of installs whose process is gone (killed mid-install) are removed. */
export function removeAbandonedStaging(parent: string, log: (line: string) => void): void {
  if (!existsSync(parent)) return;
  for (const name of readdirSync(parent)) {
    const pid = Number(/^\.sdk-[0-9a-f]+\.partial-(\d+)$/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || isAlive(pid)) continue;
    log(`removing ${name}, left by an install that did not finish (pid ${pid})`);
    try {
      removeRoot(path.join(parent, name));
    } catch (err) {
      // Its watchdog may be removing it too; a folder that stays does not stop this install.
      log(`could not remove ${name}: ${(err as Error).message}`);
    }
  }
}

export interface InstallContext {
  log: (line: string) => void;
  /** Each step's process group leader while it runs (a watchdog stops them if we die). */
  processes?: { track(pid: number): void; untrack(pid: number): void };
}

/**
 * Builds the environment for `r` in `staging` (its `root` folder and `installed.json`); the
 * caller renames it into place. Needs root (mmdebstrap's root mode, mount, chroot).
 */
export async function installEnvironment(
  staging: string,
  r: Recipe,
  ctx: InstallContext,
): Promise<InstalledFacts> {
  const { log } = ctx;
  await ensureMmdebstrap(log);
  const root = path.join(staging, "root");
  mkdirSync(path.join(staging, "tmp"), { recursive: true });
  const mirror = debianMirror();
  await step(
    `making a Debian ${r.suite} root with ${r.packages.join(", ")} from ${mirror} (about 2 minutes)`,
    // Its own mount namespace: mounts mmdebstrap makes in the root cannot outlive it. Its temp
    // files (a gpg home) go in staging too, so a killed run leaves nothing in /tmp.
    plain([
      "env",
      `TMPDIR=${path.join(staging, "tmp")}`,
      "unshare",
      "--mount",
      "--propagation",
      "private",
      "--",
      ...mmdebstrapCommand(root, mirror),
    ]),
    20 * 60_000,
    ctx,
  );
  mkdirSync(path.join(root, IN_ROOT.scriptDir), { recursive: true });
  copyFileSync(REQUIREMENTS_FILE, path.join(root, IN_ROOT.requirements));

  const host = hostView();
  const dns = dnsSettings(host);
  const pip = pipSettings(host);
  log(
    `carrying the host's network settings into the root (names only): ${[...dns.names, ...pip.names].join(", ")}`,
  );
  const network: Bind[] = [...dns.binds, ...pip.binds];
  const env = [...BASE_ENV, { name: "PIP_NO_INPUT", value: "1" }, ...pip.env];
  await step(
    `creating the virtual environment ${IN_ROOT.venv} in the root`,
    inRootCommand(root, network, env, ["/usr/bin/python3", "-m", "venv", IN_ROOT.venv]),
    5 * 60_000,
    ctx,
  );
  await step(
    `pip install -r ${path.basename(REQUIREMENTS_FILE)} (livepeer-gateway and its pins, wheels only)`,
    inRootCommand(root, network, env, [
      IN_ROOT.python,
      "-m",
      "pip",
      "install",
      "--only-binary=:all:",
      "--no-cache-dir",
      "-r",
      IN_ROOT.requirements,
    ]),
    15 * 60_000,
    ctx,
  );
  const checked = await step(
    "checking the environment (the SDK imports; grpcio, av and protobuf's native code work)",
    inRootCommand(
      root,
      [...dns.binds, { source: path.dirname(CHECK_SCRIPT), target: IN_ROOT.scriptDir }],
      BASE_ENV,
      [IN_ROOT.python, `${IN_ROOT.scriptDir}/${path.basename(CHECK_SCRIPT)}`],
    ),
    2 * 60_000,
    ctx,
  );
  const facts = parseFacts(checked);
  rmSync(path.join(staging, "tmp"), { recursive: true, force: true });
  writeFileSync(path.join(staging, "installed.json"), `${JSON.stringify({ recipe: r, facts }, null, 2)}\n`);
  return facts;
}

/** The check's JSON line; anything else is an error naming what came out. */
export function parseFacts(stdout: string): InstalledFacts {
  const line = stdout.trim().split("\n").pop() ?? "";
  let facts: InstalledFacts | undefined;
  try {
    facts = JSON.parse(line) as InstalledFacts;
  } catch {}
  if (!facts?.ok) throw new Error(`the environment check did not report ok: ${tail(stdout, 1000)}`);
  return facts;
}
