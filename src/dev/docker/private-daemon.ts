// The project's own Docker daemon, for the kind tier where the machine has none: containerd and
// dockerd in a network namespace of our own (so Docker's iptables rules, bridges and port
// forwards never touch the machine's), on their own sockets, with the data root cached outside
// the repo (the kind node image stays between runs) and everything else in a temporary directory.
// Stopped by pid on every exit; the namespace, its iptables chains and the temporary directory
// go with it.
import { execFile, execFileSync, spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isAlive, stopPid } from "../../process/pids.ts";
import { logTail, type ManagedProcess, waitFor } from "../cluster/process.ts";
import { unmountAllUnder } from "../cluster/real-node/mounts.ts";
import { cacheDir } from "../toolchain/binaries.ts";
import {
  containerdArgv,
  containerdConfigToml,
  dataRootFor,
  dockerdArgv,
  dockerHost,
  inNetns,
  type PrivateDockerLayout,
  privateDockerLayout,
} from "./layout.ts";
import { type LockRecord, takeLock } from "./lock.ts";

export interface PrivateDocker {
  /** `unix://<socket>`: a unix socket, reachable from any network namespace (the node image build). */
  dockerHost: string;
  layout: PrivateDockerLayout;
  /** What talks to the daemon's containers (port forwards to 127.0.0.1) runs inside the namespace. */
  inNetns(argv: readonly string[]): string[];
  stop(): Promise<void>;
}

/**
 * A daemon in a process group of its own: a terminal's Ctrl-C goes to our group only, and we stop
 * the daemons in order (dockerd, then containerd) after kind has deleted its cluster.
 */
function startDaemon(name: string, argv: string[], logFile: string): ManagedProcess {
  const fd = openSync(logFile, "a");
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", fd, fd], detached: true });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`could not start ${name} (${argv[0]})`);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { name, pid: child.pid, logFile, child, exited };
}

function ip(args: string[]): void {
  execFileSync("ip", args, { stdio: ["ignore", "ignore", "pipe"] });
}

function docker(host: string, args: string[], timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      "docker",
      ["--host", host, ...args],
      { timeout: timeoutMs, env: { ...process.env, DOCKER_HOST: host } },
      (err, stdout, stderr) => (err ? reject(new Error(stderr.trim() || err.message)) : resolve(stdout)),
    ),
  );
}

/** A process we started (its command line names our data root or run directory), stopped by pid. */
async function stopIfOurs(pid: number | undefined, marker: string, graceMs: number): Promise<void> {
  if (!pid || !isAlive(pid)) return;
  let cmdline = "";
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return;
  }
  if (cmdline.includes(marker)) await stopPid(pid, graceMs);
}

/** Everything a run left: its daemons (by pid), mounts, namespace and temporary directory. */
async function tearDown(record: LockRecord, dataRoot: string): Promise<string[]> {
  const problems: string[] = [];
  // dockerd first (it stops its containers), then containerd; SIGKILL after the grace period.
  await stopIfOurs(record.dockerdPid, record.runDir, 30_000);
  await stopIfOurs(record.containerdPid, record.runDir, 10_000);
  for (const dir of [record.runDir, dataRoot]) problems.push(...unmountAllUnder(dir));
  if (existsSync(`/run/netns/${record.netns}`)) {
    try {
      // Its bridges, veths and iptables chains live in the namespace and go with it.
      ip(["netns", "del", record.netns]);
    } catch (err) {
      problems.push(`ip netns del ${record.netns}: ${(err as Error).message}`);
    }
  }
  rmSync(record.runDir, { recursive: true, force: true });
  return problems;
}

export async function startPrivateDocker(log: (line: string) => void): Promise<PrivateDocker> {
  const dataRoot = dataRootFor(cacheDir(), process.env.LPO_DOCKER_DATA_ROOT || undefined);
  const runDir = mkdtempSync(path.join(tmpdir(), "lpo-docker-"));
  const layout = privateDockerLayout(dataRoot, runDir, process.pid);
  mkdirSync(path.dirname(layout.dataRoot), { recursive: true });
  const record: LockRecord = { pid: process.pid, runDir, netns: layout.netns };
  let lock: Awaited<ReturnType<typeof takeLock>>;
  try {
    lock = await takeLock(layout.lockFile, layout.dataRoot, record, async (stale) => {
      log(`a run that was killed (pid ${stale.pid}) left its Docker behind: cleaning it up`);
      for (const p of await tearDown(stale, layout.dataRoot)) log(`  left: ${p}`);
    });
  } catch (err) {
    rmSync(runDir, { recursive: true, force: true });
    throw err;
  }

  let containerd: ManagedProcess | undefined;
  let dockerd: ManagedProcess | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const problems = await tearDown(
      { ...record, dockerdPid: dockerd?.pid, containerdPid: containerd?.pid },
      layout.dataRoot,
    );
    lock.release();
    if (problems.length) log(`the project's Docker left behind: ${problems.join("; ")}`);
  };
  try {
    ip(["netns", "add", layout.netns]);
    execFileSync("nsenter", [`--net=${layout.netnsPath}`, "ip", "link", "set", "lo", "up"]);
    mkdirSync(path.dirname(layout.containerdConfig), { recursive: true });
    writeFileSync(layout.containerdConfig, containerdConfigToml(layout));
    containerd = startDaemon("containerd", containerdArgv(layout), layout.logs.containerd);
    lock.update({ containerdPid: containerd.pid });
    await waitFor(
      "our containerd to serve its socket",
      async () => {
        if (containerd!.child.exitCode !== null)
          throw new Error(`containerd exited ${containerd!.child.exitCode}`);
        return existsSync(layout.containerdSocket);
      },
      30_000,
      () => logTail(layout.logs.containerd),
    );
    dockerd = startDaemon("dockerd", dockerdArgv(layout), layout.logs.dockerd);
    lock.update({ dockerdPid: dockerd.pid });
    const host = dockerHost(layout);
    await waitFor(
      "our dockerd to answer docker info",
      async () => {
        if (dockerd!.child.exitCode !== null) throw new Error(`dockerd exited ${dockerd!.child.exitCode}`);
        return (await docker(host, ["info", "--format", "{{.ServerVersion}}"])).trim().length > 0;
      },
      60_000,
      () => logTail(layout.logs.dockerd),
    );
    // A run killed outright leaves its containers in the data root (kind's restart on start). The
    // data root is ours alone (the lock), so anything in it is a leftover.
    const leftovers = (await docker(host, ["ps", "-aq"])).split("\n").filter(Boolean);
    if (leftovers.length > 0) {
      log(`removing ${leftovers.length} containers a killed run left`);
      await docker(host, ["rm", "-f", "-v", ...leftovers], 120_000);
    }
    log(`our dockerd answers on ${host} (network namespace ${layout.netns}, data root ${layout.dataRoot})`);
    return { dockerHost: host, layout, inNetns: (argv) => inNetns(layout, argv), stop };
  } catch (err) {
    const tail = dockerd ? logTail(layout.logs.dockerd) : containerd ? logTail(layout.logs.containerd) : "";
    await stop();
    throw new Error(`${(err as Error).message}${tail ? `\n${tail}` : ""}`);
  }
}

/** Docker's `docker network rm`, for what kind leaves on our daemon (its `kind` network). */
export function removeNetwork(host: string, name: string): Promise<void> {
  return docker(host, ["network", "rm", name]).then(
    () => undefined,
    () => undefined,
  );
}
