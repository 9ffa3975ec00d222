// Mounts a real node leaves in the host's mount namespace: container root filesystems
// (overlay), sandbox /dev/shm, the kubelet's pod volumes (tmpfs) and its rshared bind of its
// root dir, all under the node's directory; and CRI's network namespace files in /run/netns.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { unescapeMount } from "./cgroups.ts";

/** Mount points from /proc/self/mountinfo, in mount order. */
export function parseMountPoints(mountinfo: string): string[] {
  return mountinfo
    .split("\n")
    .filter(Boolean)
    .map((l) => unescapeMount(l.split(" ")[4] ?? ""));
}

/** Mount points at or below `dir`, deepest (and latest) first: the order to unmount them in. */
export function mountsUnder(dir: string, mountinfo = readFileSync("/proc/self/mountinfo", "utf8")): string[] {
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  const under = parseMountPoints(mountinfo).filter((m) => m === dir || m.startsWith(prefix));
  return under.reverse().sort((a, b) => b.split("/").length - a.split("/").length);
}

/** Unmounts (lazily if it is busy); returns an error message or undefined. */
export function unmount(mountPoint: string): string | undefined {
  try {
    execFileSync("umount", [mountPoint], { stdio: ["ignore", "ignore", "pipe"] });
    return undefined;
  } catch {
    try {
      execFileSync("umount", ["-l", mountPoint], { stdio: ["ignore", "ignore", "pipe"] });
      return undefined;
    } catch (err) {
      return `${mountPoint}: ${((err as { stderr?: Buffer }).stderr ?? "").toString().trim()}`;
    }
  }
}

/** Unmounts everything under `dir` (stacked mounts included) until nothing is left or no progress. */
export function unmountAllUnder(dir: string): string[] {
  let errors: string[] = [];
  for (let round = 0; round < 5; round++) {
    const mounts = mountsUnder(dir);
    if (mounts.length === 0) return [];
    errors = mounts.map(unmount).filter((e): e is string => !!e);
  }
  return errors.length ? errors : mountsUnder(dir).map((m) => `${m}: still mounted`);
}
