// The readiness protocol (contract): one stdout line `READY {json}` without secrets, and the same
// JSON plus secrets in `.dev/state.json` (mode 0600, removed on exit).
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface DevState {
  kubeconfig: string;
  apiUrl?: string;
  /** The controller's Prometheus metrics. */
  metricsUrl?: string;
  ethUrl?: string;
  deployments?: string;
  /** Secret: kept out of the READY line. */
  token?: string;
  pid: number;
}

const SECRET_KEYS = ["token"] as const;

export function publicState(state: DevState): Omit<DevState, (typeof SECRET_KEYS)[number]> {
  const copy: Record<string, unknown> = { ...state };
  for (const key of SECRET_KEYS) delete copy[key];
  return copy as Omit<DevState, "token">;
}

export function stateFile(baseDir: string): string {
  return path.join(baseDir, ".dev", "state.json");
}

export function announceReady(baseDir: string, state: DevState): void {
  const file = stateFile(baseDir);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  process.stdout.write(`READY ${JSON.stringify(publicState(state))}\n`);
}

export function readState(baseDir: string): DevState | undefined {
  try {
    return JSON.parse(readFileSync(stateFile(baseDir), "utf8")) as DevState;
  } catch {
    return undefined;
  }
}

export function clearState(baseDir: string): void {
  rmSync(stateFile(baseDir), { force: true });
}
