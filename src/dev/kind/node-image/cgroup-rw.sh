#!/bin/sh
# Where the runtime gave this node read-only cgroup mounts (a restricted sandbox runs it without
# --privileged: see src/dev/kind/sandbox-docker.ts), make them writable: systemd and the kubelet
# manage cgroups below the node's own (a private cgroup namespace keeps them there).
set -eu
if grep -qs ' /sys/fs/cgroup[/ ].* ro[, ]' /proc/self/mounts; then
  mount -o remount,bind,rw /sys/fs/cgroup 2>/dev/null || true
  for m in $(awk '$3 == "cgroup" || $3 == "cgroup2" { print $2 }' /proc/self/mounts); do
    mount -o remount,bind,rw "$m"
  done
fi
# Likewise /proc/sys (read-only without --privileged): writable for the node's own network
# namespace (CNI, kube-proxy), but the host-wide tunables the kubelet sets at start (kernel.panic,
# vm.overcommit_memory, ...) get node-private files bound over them so that it never changes the
# host's values (a privileged kind node would; ours need not).
if grep -qs ' /proc/sys proc ro[, ]' /proc/self/mounts; then
  mount -o remount,bind,rw /proc/sys
  mkdir -p /run/lpo-sysctl
  for t in kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys kernel/keys/root_maxbytes \
    vm/overcommit_memory vm/panic_on_oom; do
    f="/run/lpo-sysctl/$(echo "$t" | tr / .)"
    cat "/proc/sys/$t" > "$f"
    mount --bind "$f" "/proc/sys/$t"
  done
fi
exec "$@"
