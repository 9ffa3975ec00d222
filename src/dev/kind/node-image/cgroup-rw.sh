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
exec "$@"
