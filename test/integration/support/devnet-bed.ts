// A devnet for one integration file: `livepeer-operator devnet up` (the real chain and protocol
// contracts, a round ticker) in a temp dir on a port of its own, the `devnet` CLI bound to it,
// and a teardown that stops whatever a failed test left running (a paused chain resumed first)
// and removes the dir.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { freePort, isAlive, stopPid } from "../../../src/devnet/processes.ts";
import type { DevnetState } from "../../../src/devnet/state.ts";
import { cli } from "./cli.ts";

export interface DevnetBed {
  readonly dir: string;
  /** As `devnet up --json` printed it last (`up` again replaces it). */
  state: DevnetState;
  account(name: string): DevnetState["accounts"][number];
  /** `livepeer-operator devnet <args> --dir <dir>`, which must succeed; its stdout. */
  devnet(...args: string[]): Promise<string>;
  /** `devnet up` again with `args`: on a running devnet, restarts what is stopped (the ticker). */
  up(args?: readonly string[]): Promise<DevnetState>;
  stop(): Promise<void>;
}

/** `upArgs`: `devnet up` flags (`--block-interval`, `--round-length`, `--orchestrators` ...). */
export async function startDevnetBed(prefix: string, upArgs: readonly string[] = []): Promise<DevnetBed> {
  const dir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  const up = async (args: readonly string[]) => {
    const r = await cli(["devnet", "up", "--dir", dir, ...args, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as DevnetState;
  };
  const bed: DevnetBed = {
    dir,
    state: await up(["--port", String(await freePort()), ...upArgs]),
    account: (name) => {
      const found = bed.state.accounts.find((a) => a.name === name);
      if (!found)
        throw new Error(`no devnet account ${name}: ${bed.state.accounts.map((a) => a.name).join(", ")}`);
      return found;
    },
    async devnet(...args) {
      const r = await cli(["devnet", ...args, "--dir", dir]);
      expect(r.code, `devnet ${args.join(" ")}: ${r.stderr}`).toBe(0);
      return r.stdout;
    },
    async up(args = upArgs) {
      bed.state = await up(args);
      return bed.state;
    },
    async stop() {
      for (const file of ["ticker.pid", "chain.pid"]) {
        const pidFile = path.join(dir, ".devnet", file);
        if (!existsSync(pidFile)) continue;
        const pid = Number(readFileSync(pidFile, "utf8"));
        if (!isAlive(pid)) continue;
        process.kill(pid, "SIGCONT");
        await stopPid(pid);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return bed;
}
