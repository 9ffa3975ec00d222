// Where the project's own Docker daemon keeps its things, and how its containerd and dockerd are
// started. Pure: paths in, argument lists and config text out; private-daemon.ts does the I/O.
import path from "node:path";

export interface PrivateDockerLayout {
  /** Cached between runs (outside the repo): images, including the 1.5 GB kind node image. */
  dataRoot: string;
  /** `<dataRoot>.lock`: one run at a time per data root (dockerd itself would hang on it). */
  lockFile: string;
  /** This run's temporary directory: exec root, sockets, containerd's state, logs. */
  runDir: string;
  execRoot: string;
  dockerSocket: string;
  pidFile: string;
  containerdRoot: string;
  containerdState: string;
  containerdSocket: string;
  containerdConfig: string;
  /** The network namespace's name (`ip netns`): /run/netns/<netns>. */
  netns: string;
  netnsPath: string;
  logs: { dockerd: string; containerd: string };
}

/** The cached data root: LPO_DOCKER_DATA_ROOT, or `<cache>/docker/data`. */
export function dataRootFor(cacheRoot: string, override: string | undefined): string {
  return override ? path.resolve(override) : path.join(cacheRoot, "docker", "data");
}

export function privateDockerLayout(dataRoot: string, runDir: string, runId: number): PrivateDockerLayout {
  const netns = `lpo-docker-${runId}`;
  return {
    dataRoot,
    lockFile: `${dataRoot}.lock`,
    runDir,
    execRoot: path.join(runDir, "exec"),
    dockerSocket: path.join(runDir, "docker.sock"),
    pidFile: path.join(runDir, "dockerd.pid"),
    // Docker 20.10 keeps images in its own data root; containerd only holds running containers.
    containerdRoot: path.join(runDir, "containerd", "root"),
    containerdState: path.join(runDir, "containerd", "state"),
    containerdSocket: path.join(runDir, "containerd", "containerd.sock"),
    containerdConfig: path.join(runDir, "containerd", "config.toml"),
    netns,
    netnsPath: `/run/netns/${netns}`,
    logs: { dockerd: path.join(runDir, "dockerd.log"), containerd: path.join(runDir, "containerd.log") },
  };
}

export function dockerHost(layout: PrivateDockerLayout): string {
  return `unix://${layout.dockerSocket}`;
}

/**
 * Our containerd's config: its own root, state and socket, and no CRI plugin (Docker does not use
 * it). Written rather than defaulted so that a machine's /etc/containerd/config.toml never applies.
 */
export function containerdConfigToml(layout: PrivateDockerLayout): string {
  return [
    "version = 2",
    `root = ${JSON.stringify(layout.containerdRoot)}`,
    `state = ${JSON.stringify(layout.containerdState)}`,
    'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
    "",
    "[grpc]",
    `  address = ${JSON.stringify(layout.containerdSocket)}`,
    "",
    // Otherwise containerd creates /opt/containerd on the machine.
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${JSON.stringify(path.join(layout.runDir, "containerd", "opt"))}`,
    "",
  ].join("\n");
}

/** Run inside our network namespace: `nsenter --net` (not `ip netns exec`, which remounts /sys). */
export function inNetns(layout: Pick<PrivateDockerLayout, "netnsPath">, argv: readonly string[]): string[] {
  return ["nsenter", `--net=${layout.netnsPath}`, "--", ...argv];
}

export function containerdArgv(layout: PrivateDockerLayout): string[] {
  return inNetns(layout, ["containerd", "--config", layout.containerdConfig, "--log-level", "warn"]);
}

/**
 * dockerd on our containerd (never the machine's /run/containerd socket, which dockerd would pick
 * up on its own), its own socket, pid file, exec root and the cached data root.
 */
export function dockerdArgv(layout: PrivateDockerLayout): string[] {
  return inNetns(layout, [
    "dockerd",
    "--containerd",
    layout.containerdSocket,
    "--data-root",
    layout.dataRoot,
    "--exec-root",
    layout.execRoot,
    "--host",
    `unix://${layout.dockerSocket}`,
    "--pidfile",
    layout.pidFile,
    "--log-level",
    "warn",
  ]);
}
