// The official Livepeer Python gateway SDK, ready to run: `ensureGatewaySdk(log)` installs it on
// first use into the project's cache (<cache>/python/<key>, the key naming what is installed,
// so a changed recipe installs anew beside the old) and returns how to run Python in it.
// One install at a time per cache (vitest workers may all ask at once); the others wait and use it.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { startReaper } from "../cluster/reaper.ts";
import { cacheDir } from "../toolchain/binaries.ts";
import { withCacheLock } from "../toolchain/cache-lock.ts";
import { dnsSettings } from "./host-settings.ts";
import { inRootCommand, type RunResult, runCommand, SETUP_FAILED } from "./in-root.ts";
import {
  BASE_ENV,
  CHECK_SCRIPT,
  hostView,
  type InstalledFacts,
  installEnvironment,
  removeAbandonedStaging,
  removeRoot,
} from "./install.ts";
import { here, IN_ROOT, recipe, recipeKey } from "./recipe.ts";

/** The SDK driver shipped with the repo: `discover` and `orch-info` (see its docstring). */
export const GATEWAY_DRIVER = path.join(here, "gateway-driver.py");
export { CHECK_SCRIPT };

export interface RunOptions {
  /** Killed (whole process group) after this long; default 60 s. */
  timeoutMs?: number;
  /** Standard input. */
  input?: string;
}

export interface GatewaySdk {
  /** The environment's folder: `root` (the Debian root, the venv at /opt/venv) and installed.json. */
  dir: string;
  /** What the install's check reported (Python and package versions). */
  installed: InstalledFacts;
  /** argv prefix running the venv's python in the root (append python's own arguments). */
  python: string[];
  /** Runs a host script file with the venv's python in the root (its folder mounted read-only). */
  run(script: string, args?: readonly string[], opts?: RunOptions): Promise<RunResult>;
}

/** Where Python SDK environments are cached. */
export function pythonCacheDir(): string {
  return path.join(cacheDir(), "python");
}

function requireRoot(): void {
  if (process.getuid?.() === 0) return;
  throw new Error(
    "the Python SDK environment is a Debian root filesystem made with mmdebstrap and entered with unshare and chroot, " +
      "which need root. Run as root, e.g.:\n  sudo npm run -s cli -- python-sdk",
  );
}

function readInstalled(dir: string): InstalledFacts | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(dir, "installed.json"), "utf8")) as { facts: InstalledFacts })
      .facts;
  } catch {
    return undefined;
  }
}

/** Installs the environment unless the cache has it; returns how to run Python in it. */
export async function ensureGatewaySdk(
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<GatewaySdk> {
  requireRoot();
  const say = (line: string) => log(`[python-sdk] ${line}`);
  const r = recipe();
  const parent = pythonCacheDir();
  const dir = path.join(parent, recipeKey(r));
  let installed = readInstalled(dir);
  if (!installed) {
    installed = await withCacheLock(path.join(parent, ".build.lock"), "python-sdk", log, async () => {
      const done = readInstalled(dir); // another process may have installed it while we waited
      if (done) return done;
      removeAbandonedStaging(parent, say);
      if (existsSync(dir)) removeRoot(dir); // a folder without installed.json is not one we made whole
      const staging = path.join(parent, `.${path.basename(dir)}.partial-${process.pid}`);
      mkdirSync(staging, { recursive: true });
      // Should this process die mid-install, a watchdog stops the step running and removes staging.
      const reaper = startReaper(staging, true);
      const t0 = Date.now();
      say(`installing Python and livepeer-gateway into ${dir} (once; cached for later runs)`);
      try {
        const facts = await installEnvironment(staging, r, { log: say, processes: reaper });
        reaper.release();
        for (const f of ["reaper.pids", "reaper.cleanups"]) rmSync(path.join(staging, f), { force: true });
        renameSync(staging, dir);
        say(
          `ready in ${((Date.now() - t0) / 1000).toFixed(0)} s: Python ${facts.python}, ${Object.entries(
            facts.packages,
          )
            .map(([n, v]) => `${n} ${v}`)
            .join(", ")}`,
        );
        return facts;
      } catch (err) {
        reaper.release();
        try {
          removeRoot(staging);
        } catch (cleanup) {
          say((cleanup as Error).message);
        }
        throw err;
      }
    });
  }
  return gatewaySdkIn(dir, installed);
}

function gatewaySdkIn(dir: string, installed: InstalledFacts): GatewaySdk {
  const root = path.join(dir, "root");
  const dns = dnsSettings(hostView()).binds;
  return {
    dir,
    installed,
    python: inRootCommand(root, dns, BASE_ENV, [IN_ROOT.python]).argv,
    async run(script, args = [], opts = {}) {
      const command = inRootCommand(
        root,
        [...dns, { source: path.dirname(path.resolve(script)), target: IN_ROOT.scriptDir }],
        BASE_ENV,
        [IN_ROOT.python, `${IN_ROOT.scriptDir}/${path.basename(script)}`, ...args],
      );
      const result = await runCommand(command.argv, { ...opts, timeoutMs: opts.timeoutMs ?? 60_000 });
      if (result.code === SETUP_FAILED && result.stderr.includes("[python-root]")) {
        throw new Error(
          `could not enter the Python SDK root ${root}: ${result.stderr.trim()}\nRun it by hand (as root) to see why:\n  ${command.shown}`,
        );
      }
      return result;
    },
  };
}
