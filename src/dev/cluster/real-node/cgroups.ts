// One cgroup subtree per real node, in every mounted hierarchy, below the cgroup our own
// process is in (never above it: whoever placed us there keeps accounting for us). containerd
// is moved into it before it starts anything, so its shims, and runc's containers created
// relative to the shims' cgroup, all land inside; stopping the node empties and removes it.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface CgroupMount {
  mountPoint: string;
  version: 1 | 2;
  /** v1: controllers and `name=...` options of the hierarchy; v2: empty. */
  controllers: string[];
}

/** cgroup hierarchies from /proc/self/mountinfo. */
export function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const [fsType, , superOptions = ""] = right.split(" ");
    const mountPoint = unescapeMount(left.split(" ")[4] ?? "");
    if (fsType === "cgroup2") mounts.push({ mountPoint, version: 2, controllers: [] });
    if (fsType === "cgroup") {
      const controllers = superOptions
        .split(",")
        .filter((o) => !["rw", "ro"].includes(o) && !o.includes("/"));
      mounts.push({ mountPoint, version: 1, controllers });
    }
  }
  return mounts;
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
export function unescapeMount(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
}

/** A process's cgroup path in a hierarchy, from /proc/<pid>/cgroup. */
export function cgroupPathIn(procCgroup: string, mount: CgroupMount): string | undefined {
  for (const line of procCgroup.split("\n")) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    const [, , list, p] = m;
    if (mount.version === 2 && list === "") return p;
    if (mount.version === 1 && list) {
      const names = list.split(",");
      if (names.length === mount.controllers.length && names.every((n) => mount.controllers.includes(n)))
        return p;
    }
  }
  return undefined;
}

/** The absolute directories of `name` below our own cgroup in every hierarchy. */
export function nodeCgroupDirs(name: string): string[] {
  const mounts = parseCgroupMounts(readFileSync("/proc/self/mountinfo", "utf8"));
  const own = readFileSync("/proc/self/cgroup", "utf8");
  const dirs: string[] = [];
  for (const mount of mounts) {
    const p = cgroupPathIn(own, mount);
    if (p !== undefined) dirs.push(path.join(mount.mountPoint, p, name));
  }
  return dirs;
}

/** Creates the directories; a new v1 cpuset needs its parent's cpus and mems before it takes tasks. */
export function createCgroups(dirs: readonly string[]): void {
  for (const dir of dirs) {
    mkdirSync(dir, { recursive: true });
    for (const file of ["cpuset.cpus", "cpuset.mems"]) {
      const own = path.join(dir, file);
      const parent = path.join(path.dirname(dir), file);
      if (existsSync(own) && existsSync(parent) && readFileSync(own, "utf8").trim() === "") {
        writeFileSync(own, readFileSync(parent, "utf8"));
      }
    }
  }
}

export function joinCgroups(pid: number, dirs: readonly string[]): void {
  for (const dir of dirs) writeFileSync(path.join(dir, "cgroup.procs"), `${pid}\n`);
}

/** Every pid in the subtrees (a dir that does not exist has none). */
export function pidsIn(dirs: readonly string[]): number[] {
  const pids = new Set<number>();
  const walk = (dir: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    try {
      for (const l of readFileSync(path.join(dir, "cgroup.procs"), "utf8").split("\n"))
        if (l) pids.add(Number(l));
    } catch {}
    for (const e of entries) if (e.isDirectory()) walk(path.join(dir, e.name));
  };
  for (const d of dirs) walk(d);
  return [...pids];
}

/** Removes the subtrees, deepest first; returns the directories that could not be removed. */
export function removeCgroups(dirs: readonly string[]): string[] {
  const left: string[] = [];
  const remove = (dir: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // already gone
    }
    for (const e of entries) if (e.isDirectory()) remove(path.join(dir, e.name));
    try {
      rmdirSync(dir);
    } catch {
      left.push(dir);
    }
  };
  for (const d of dirs) remove(d);
  return left;
}
