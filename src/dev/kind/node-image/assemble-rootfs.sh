#!/usr/bin/env bash
# The kind node's root filesystem, without a registry: a Debian rootfs from the Debian mirror
# (mmdebstrap) with what kind's own base image installs (systemd, containerd, runc, CNI plugins,
# iptables ...), kind's node files from the pinned kind module, and our Go-built Kubernetes binaries.
#   assemble-rootfs.sh <root> <kind-module-dir> <bin-dir> <kubernetes-version>
# <bin-dir> holds kubelet kubeadm kubectl kube-proxy (copied to /usr/bin, where kind's units expect them).
# The images the node preloads are added by build.ts afterwards (/kind/images).
set -euo pipefail
root=${1:?root}; kind=${2:?kind module}; bin=${3:?bin dir}; k8s=${4:?kubernetes version}
files="$kind/images/base/files"
step() { printf '[node-image] %s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# kind's base image package list (images/base/Dockerfile), Debian's containerd/runc/CNI plugins
# instead of its nightly builds, and jq for cri-base.json. nfs/iscsi/e2fsprogs are left out:
# nothing here mounts network storage.
packages=systemd,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,bash,ca-certificates,procps,containerd,runc,containernetworking-plugins,jq
step "mmdebstrap bookworm ($packages)"
rm -rf "$root"
mmdebstrap --variant=minbase --include="$packages" --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/man/*' \
  bookworm "$root" >&2

step "kind's node files"
install -d -m 0755 "$root/kind" "$root/kind/bin" "$root/etc/containerd" "$root/etc/systemd/system/kubelet.service.d" \
  "$root/etc/kubernetes/manifests" "$root/opt/cni/bin" "$root/kind/images" "$root/kind/manifests"
install -m 0755 "$files"/usr/local/bin/* "$root/usr/local/bin/"
install -m 0755 "$files"/kind/bin/* "$root/kind/bin/"
# Runs before kind's entrypoint (the image's ENTRYPOINT, build.ts): writable cgroups in sandboxes.
install -m 0755 "$(dirname "$0")/cgroup-rw.sh" "$root/kind/bin/lpo-cgroup-rw.sh"
# restrict_oom_score_adj: where the node lacks CAP_SYS_RESOURCE (a restricted sandbox), runc cannot
# lower a pod's oom_score_adj below containerd's own and every sandbox fails ("can't get final
# child's PID from pipe"); restricting clamps it instead. Harmless elsewhere.
sed 's/restrict_oom_score_adj = false/restrict_oom_score_adj = true/' "$files/etc/containerd/config.toml" \
  > "$root/etc/containerd/config.toml"
chmod 0644 "$root/etc/containerd/config.toml"
install -m 0644 "$files/etc/crictl.yaml" "$root/etc/crictl.yaml"
install -m 0644 "$files/etc/default/kubelet" "$root/etc/default/kubelet"
install -m 0644 "$files"/etc/sysctl.d/* "$root/etc/sysctl.d/"
for f in "$files"/etc/systemd/system/*; do [ -f "$f" ] && install -m 0644 "$f" "$root/etc/systemd/system/"; done
install -m 0644 "$files"/etc/systemd/system/kubelet.service.d/* "$root/etc/systemd/system/kubelet.service.d/"
# kind's units name /usr/local/bin/containerd; Debian installs it in /usr/bin. No fuse-overlayfs here.
ln -sf /usr/bin/containerd "$root/usr/local/bin/containerd"
rm -f "$root/etc/systemd/system/containerd-fuse-overlayfs.service"
# kind's containerd config expects the CNI plugins in /opt/cni/bin; Debian puts them in /usr/lib/cni.
for p in host-local loopback ptp portmap bridge; do ln -sf "/usr/lib/cni/$p" "$root/opt/cni/bin/$p"; done
chmod 755 "$root/kind" "$root/kind/bin"

step "Kubernetes $k8s binaries"
for b in kubelet kubectl kube-proxy; do install -m 0755 "$bin/$b" "$root/usr/bin/$b"; done
# On cgroup v1 kind runs kubeadm as soon as the entrypoint starts, not once systemd has booted;
# our nodes import their images at boot (lpo-kind-images.service), and kubeadm's systemctl calls
# fail while systemd is starting. So kubeadm waits for the boot to finish first.
install -m 0755 "$bin/kubeadm" "$root/usr/bin/kubeadm.real"
cat > "$root/usr/bin/kubeadm" <<'SH'
#!/bin/sh
# Until systemd is PID 1, systemctl answers "offline" at once; then it can wait for the boot.
i=0; while [ ! -d /run/systemd/system ] && [ $i -lt 600 ]; do sleep 0.5; i=$((i + 1)); done
timeout 300 systemctl is-system-running --wait >/dev/null 2>&1 || true
exec /usr/bin/kubeadm.real "$@"
SH
chmod 0755 "$root/usr/bin/kubeadm"
# kubeadm's kube-proxy DaemonSet runs /usr/local/bin/kube-proxy (the same root serves as its image).
ln -sf /usr/bin/kube-proxy "$root/usr/local/bin/kube-proxy"
printf '%s' "$k8s" > "$root/kind/version"

step "systemd units"
# As kind's base image: no units but ours, no kmsg in journald, /sbin/init is systemd.
find "$root/lib/systemd/system/sysinit.target.wants/" -name "systemd-tmpfiles-setup.service" -delete
rm -f "$root"/lib/systemd/system/multi-user.target.wants/* "$root"/etc/systemd/system/*.wants/* \
  "$root"/lib/systemd/system/local-fs.target.wants/* "$root"/lib/systemd/system/sockets.target.wants/*udev* \
  "$root"/lib/systemd/system/sockets.target.wants/*initctl* "$root"/lib/systemd/system/basic.target.wants/*
echo "ReadKMsg=no" >> "$root/etc/systemd/journald.conf"
ln -sf /usr/lib/systemd/systemd "$root/sbin/init"
chroot "$root" systemctl enable kubelet.service containerd.service undo-mount-hacks.service >&2
chroot "$root" systemctl mask systemd-binfmt.service >&2
chroot "$root" ctr oci spec \
  | chroot "$root" jq '.hooks.createContainer[.hooks.createContainer| length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' \
  | chroot "$root" jq 'del(.process.rlimits)' > "$root/etc/containerd/cri-base.json"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/log/*.log
step "rootfs done: $(du -sh "$root" | cut -f1)"
