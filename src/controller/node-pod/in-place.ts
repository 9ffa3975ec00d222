// Restarting a node in place: the contract between the controller, the pod and the kubelet.
//
// What the node reads at start splits in two. The pod template (image, command line, env,
// resources and GPUs, volumes, placement, overrides, and the Secret-mounted files the node reads
// at start) needs a new pod: its hash is the template annotation POD_HASH, and a change makes a
// new StatefulSet revision. The config file and the files beside it in the ConfigMap are mounted
// without subPath, so the kubelet refreshes them in the running pod: a change there only needs
// the node restarted, keeping the pod, its node and its GPUs. Its hash (the config hash) is the
// ConfigMap's key CONFIG_HASH_KEY, so it reaches the pod's disk in the same atomic swap as the file.
//
// The controller restarts a node without pods/exec: it patches the pod's annotation WANTED with the
// config hash the node should run. The container gets that annotation at start as the env var
// STARTED_ENV (fieldRef, evaluated by the kubelet at each container start) and sees it live in a
// downwardAPI file. Its exec liveness probe fails only when the wanted hash differs from the one
// it started with AND the mounted ConfigMap already holds the wanted hash, so the restarted node
// never reads a stale file; the kubelet then restarts the container (restartCount + 1). Cost: up
// to the kubelet's volume refresh (its sync period plus the ConfigMap cache, about a minute) and
// periodSeconds x failureThreshold of failing probes (60 s), then the node's own start.
// The same probe keeps the former tcpSocket check's meaning: it fails while nothing listens on
// the status port (read from /proc/net/tcp{,6}: the probe runs with dash builtins only).
//
// Why not the alternatives: pods/exec (a signal to the node) is a right the controller should not
// hold over every node pod; deleting the pod frees its GPUs for any pending pod (seen: a price edit
// left an orchestrator Pending); a sidecar watching the file would need a shared process namespace.
// The controller learns what a pod runs from its own annotations (config-restart.ts): RUNNING,
// stamped on a new pod with its ConfigMap's hash before the controller changes that ConfigMap, and
// WANTED with RESTARTS_AT_REQUEST, done once restartCount has grown past it. Known limits: a crash
// restart in the minute between a ConfigMap change and the kubelet's refresh starts the node on the
// old file while the controller counts the request done (the next config change restarts it
// again); the kubelet's restart backoff (10 s, doubling) applies to repeated restarts within ten
// minutes; an image without /bin/sh fails the probe and restarts in a loop. A request not done
// within IN_PLACE_RESTART_TIMEOUT_MS (its time in REQUESTED_AT) falls back to replacing the pod
// (node-status/rollout-policy.ts): the kubelet may never refresh the file, or the probe never act.
import { MOUNTS } from "./mounts.ts";

/** Template annotation: hash of what needs a new pod (a change is a new StatefulSet revision). */
export const POD_HASH = "livepeer.org/pod-hash";
/** ConfigMap key (and annotation) with the hash of what the node reads from the ConfigMap. */
export const CONFIG_HASH_KEY = "config-hash";
/** ConfigMap annotation with the same hash (what the controller's cache reads). */
export const CONFIG_HASH_ANNOTATION = "livepeer.org/config-hash";
/** Pod annotation, set by the controller: the config hash the node should run (restart request). */
export const WANTED = "livepeer.org/config-hash-wanted";
/** Pod annotation: the config hash the pod runs, as the controller knows it. */
export const RUNNING = "livepeer.org/config-hash";
/** Pod annotation: the container's restartCount when the restart was asked for. */
export const RESTARTS_AT_REQUEST = "livepeer.org/config-restarts";
/** Pod annotation: when the restart was asked for (RFC 3339). */
export const REQUESTED_AT = "livepeer.org/config-restart-requested-at";
/**
 * How long an in-place restart may take before the pod is replaced instead: the kubelet's refresh
 * of the mounted ConfigMap (about a minute), six failing probes (60 s), the restart backoff and the
 * node's own start, with room to spare.
 */
export const IN_PLACE_RESTART_TIMEOUT_MS = 5 * 60_000;
/** The container's env var: WANTED as it was when the container started ("" before any request). */
export const STARTED_ENV = "LIVEPEER_STARTED_CONFIG_HASH";
/** The downwardAPI volume with the live WANTED annotation. */
export const POD_INFO = { volume: "pod-info", mountPath: MOUNTS.podInfo, wantedFile: "config-hash-wanted" };

/** Shell-quoted for a single-quoted sh word. */
const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * The liveness probe's script (POSIX sh, builtins only: the go-livepeer image's dash, the
 * simulator image's dash). Exit 1 to restart in place, or when nothing listens on `port`.
 */
export function livenessScript(
  port: number,
  files = {
    wanted: `${POD_INFO.mountPath}/${POD_INFO.wantedFile}`,
    configHash: `${MOUNTS.config}/${CONFIG_HASH_KEY}`,
  },
): string {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const wantedFile = files.wanted;
  const hashFile = files.configHash;
  return [
    `w=; read -r w 2>/dev/null <${q(wantedFile)}`,
    `c=; read -r c 2>/dev/null <${q(hashFile)}`,
    `if [ -n "$w" ] && [ "$w" != "$${STARTED_ENV}" ] && [ "$w" = "$c" ]; then`,
    `  echo "config $w is mounted and wanted, the node started with \${${STARTED_ENV}:-its first}: restart in place"; exit 1`,
    "fi",
    "for f in /proc/net/tcp /proc/net/tcp6; do",
    `  [ -r "$f" ] || continue`,
    `  while read -r _ l _ s _; do case "$l/$s" in *:${hex}/0A) exit 0;; esac; done <"$f"`,
    "done",
    `echo "nothing listens on port ${port}"; exit 1`,
  ].join("\n");
}
