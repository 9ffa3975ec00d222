// The fake pods' CIDR: a /16 inside 127.0.0.0/8, so a local process can serve a pod's IP. Two
// control planes on one machine (two test runs, `npm start` beside `npm test`) must not hand out
// the same loopback IPs, or their node simulators fight over ports: each takes the first free
// 127.N.0.0/16 (N from 1), held by a lock directory naming its pid; a dead holder's lock is taken
// over. The first control plane on a machine gets 127.1.0.0/16, as before.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { isAlive } from "../../process/pids.ts";

const LOCKS = path.join(os.tmpdir(), "livepeer-operator-pod-cidrs");

export interface PodCidr {
  cidr: string;
  release(): void;
}

export function claimPodCidr(pid = process.pid, locks = LOCKS): PodCidr {
  mkdirSync(locks, { recursive: true });
  for (let n = 1; n < 255; n++) {
    const lock = path.join(locks, String(n));
    try {
      mkdirSync(lock);
    } catch {
      let holder = Number.NaN;
      try {
        holder = Number(readFileSync(path.join(lock, "pid"), "utf8"));
      } catch {}
      if (Number.isInteger(holder) && isAlive(holder)) continue;
      rmSync(lock, { recursive: true, force: true });
      try {
        mkdirSync(lock);
      } catch {
        continue; // another process took it over first
      }
    }
    writeFileSync(path.join(lock, "pid"), String(pid));
    return { cidr: `127.${n}.0.0/16`, release: () => rmSync(lock, { recursive: true, force: true }) };
  }
  throw new Error(`every 127.N.0.0/16 pod CIDR is held (see ${locks}): stop other local control planes`);
}
