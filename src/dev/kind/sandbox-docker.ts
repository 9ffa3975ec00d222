// Kind starts its nodes with `docker run --privileged`. Some sandboxes (this project's
// development machines among them) withhold one capability, CAP_SYS_RESOURCE, from everything
// they run, and runc then refuses a privileged container ("unable to apply caps: operation not
// permitted"). This rewrites kind's docker calls to ask for every capability but that one, with
// the confinement --privileged would lift lifted explicitly. The node's cgroup mounts are then
// read-only: our node image makes them writable at start (kind's --cgroupns=private keeps them
// scoped to the node; mounting the host's hierarchy instead would let three kubelets share and
// clean up one another's cgroups). Specific to restricted sandboxes: on ordinary machines kind
// runs unwrapped. Pure; the wrapper script only calls it.

/** What `--privileged` becomes on `docker run`/`docker create`. */
export const SANDBOX_PRIVILEGES = [
  "--cap-add",
  "ALL",
  "--cap-drop",
  "SYS_RESOURCE",
  "--security-opt",
  "seccomp=unconfined",
  "--security-opt",
  "apparmor=unconfined",
  "--device-cgroup-rule",
  "a *:* rwm",
  // The kubelet reads the kernel log (its OOM watcher) and will not start without it; a
  // privileged container has every host device, ours only those named.
  "--device",
  "/dev/kmsg",
];

/**
 * kind's docker arguments with `--privileged` replaced: on run/create by SANDBOX_PRIVILEGES; on
 * exec dropped (an exec gets the container's capabilities, already all but one). Anything else
 * passes through unchanged.
 */
export function sandboxDockerArgs(args: readonly string[]): string[] {
  const command = args.find((a) => !a.startsWith("-"));
  // kind passes it once, among the options before the image: later words are the container's.
  const at = args.indexOf("--privileged");
  if (at < 0 || (command !== "run" && command !== "create" && command !== "exec")) return [...args];
  const replacement = command === "exec" ? [] : SANDBOX_PRIVILEGES;
  return [...args.slice(0, at), ...replacement, ...args.slice(at + 1)];
}

/** Whether docker's error says the sandbox refused a privileged container. */
export function refusedPrivileged(dockerError: string): boolean {
  return /unable to apply caps: operation not permitted/.test(dockerError);
}
