#!/usr/bin/env bash
# Builds the control-plane binaries from the Go module proxy into a cache outside the repo.
#   build-binaries.sh <cache-dir> <component>...   components: etcd kwok kubernetes kubelet kube-proxy kubeadm coredns helm kind promtool
# Each component lands in <cache-dir>/<component>-<version>/ and is marked complete by a
# `.complete` file, so an interrupted build is redone instead of trusted.
# Versions come from versions.json beside this file: the one place they are pinned.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:?usage: build-binaries.sh <cache-dir> <component>...}; shift
version() { sed -n "s/.*\"$1\": *\"\([^\"]*\)\".*/\1/p" "$here/versions.json"; }
K8S=$(version kubernetes); ETCD=$(version etcd); KWOK=$(version kwok); HELM=$(version helm); KIND=$(version kind); COREDNS=$(version coredns); PROMTOOL=$(version promtool)
export GOFLAGS="${GOFLAGS:-} -buildvcs=false" GOTOOLCHAIN=local CGO_ENABLED=0
mkdir -p "$cache"
step() { printf '[build] %s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

finish() { # <tmp> <final>
  touch "$1/.complete"; rm -rf "$2"; mv "$1" "$2"
}

build_etcd() {
  local out="$cache/etcd-$ETCD" mod="$cache/src/etcd-$ETCD"
  [ -f "$out/.complete" ] && return 0
  step "etcd $ETCD (about 2 min cold)"
  rm -rf "$mod" && mkdir -p "$mod"
  cat > "$mod/go.mod" <<MOD
module lpo/etcd-build

go 1.24

require go.etcd.io/etcd/server/v3 $ETCD

replace (
	go.etcd.io/etcd/api/v3 => go.etcd.io/etcd/api/v3 $ETCD
	go.etcd.io/etcd/client/pkg/v3 => go.etcd.io/etcd/client/pkg/v3 $ETCD
	go.etcd.io/etcd/client/v3 => go.etcd.io/etcd/client/v3 $ETCD
	go.etcd.io/etcd/pkg/v3 => go.etcd.io/etcd/pkg/v3 $ETCD
)
MOD
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > "$mod/tools.go"
  (cd "$mod" && go mod tidy >/dev/null 2>&1 || go mod tidy)
  local tmp="$out.tmp"; rm -rf "$tmp"; mkdir -p "$tmp"
  (cd "$mod" && go build -o "$tmp/etcd" go.etcd.io/etcd/server/v3)
  finish "$tmp" "$out"
}

build_kwok() {
  local out="$cache/kwok-$KWOK"
  [ -f "$out/.complete" ] && [ -d "$out/crds" ] && return 0
  step "kwok $KWOK (about 4 min cold)"
  local tmp="$out.tmp"; rm -rf "$tmp"; mkdir -p "$tmp"
  GOBIN="$tmp" go install "sigs.k8s.io/kwok/cmd/kwok@$KWOK"
  # The stages kwok refuses to start without ship inside its module.
  local src; src=$(go env GOMODCACHE)/sigs.k8s.io/kwok@$KWOK/kustomize/stage
  mkdir -p "$tmp/stages"
  for f in "$src"/node/fast/node-initialize.yaml "$src"/node/heartbeat-with-lease/*.yaml "$src"/pod/fast/*.yaml; do
    case "$(basename "$f")" in kustomization.yaml) continue ;; esac
    cp "$f" "$tmp/stages/$(basename "$(dirname "$f")")-$(basename "$f")"
  done
  # kwok's Logs/ClusterLogs CRDs: tests attach log files to fake pods at run time.
  mkdir -p "$tmp/crds"
  local crds; crds=$(go env GOMODCACHE)/sigs.k8s.io/kwok@$KWOK/kustomize/crd/bases
  cp "$crds/kwok.x-k8s.io_logs.yaml" "$crds/kwok.x-k8s.io_clusterlogs.yaml" "$tmp/crds/"
  chmod -R u+w "$tmp/stages" "$tmp/crds"
  finish "$tmp" "$out"
}

k8s_module() { # prepares the scratch module that builds k8s.io/kubernetes commands
  local mod="$cache/src/kubernetes-$K8S"
  if [ ! -f "$mod/go.mod" ]; then
    step "resolving k8s.io/kubernetes $K8S modules"
    rm -rf "$mod" && mkdir -p "$mod"
    local gomod; gomod=$(go mod download -json "k8s.io/kubernetes@$K8S" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')
    local staging_version="v0${K8S#v1}"
    {
      printf 'module lpo/kubernetes-build\n\ngo 1.25\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$K8S"
      sed -n 's#^[[:space:]]*\(k8s.io/[^ ]*\) => ./staging/src/.*#\1#p' "$gomod" | sort -u |
        while read -r m; do printf '\t%s => %s %s\n' "$m" "$m" "$staging_version"; done
      printf ')\n'
    } > "$mod/go.mod"
  fi
  # Every command built from the module is listed, so `go mod tidy` records its dependencies;
  # a cache tidied for fewer commands (an older list) is tidied again.
  local tools
  tools=$(cat <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubectl/pkg/cmd"
	_ "k8s.io/kubernetes/cmd/kube-apiserver/app"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	_ "k8s.io/kubernetes/cmd/kube-proxy/app"
	_ "k8s.io/kubernetes/cmd/kube-scheduler/app"
	_ "k8s.io/kubernetes/cmd/kubeadm/app"
	_ "k8s.io/kubernetes/cmd/kubelet/app"
)
GO
)
  if [ ! -f "$mod/.tidy" ] || [ "$(cat "$mod/tools.go" 2>/dev/null)" != "$tools" ]; then
    step "tidying the k8s.io/kubernetes $K8S scratch module"
    rm -f "$mod/.tidy"
    printf '%s\n' "$tools" > "$mod/tools.go"
    (cd "$mod" && go mod tidy >&2)
    touch "$mod/.tidy"
  fi
  echo "$mod"
}

k8s_ldflags() {
  local minor; minor=$(echo "$K8S" | cut -d. -f2)
  local f=""
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    f+=" -X $pkg.gitVersion=$K8S -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  echo "-s -w$f"
}

build_k8s_cmds() { # <out-name> <cmd>...
  local name=$1; shift
  local out="$cache/$name-$K8S"
  [ -f "$out/.complete" ] && return 0
  local mod; mod=$(k8s_module)
  local tmp="$out.tmp"; rm -rf "$tmp"; mkdir -p "$tmp"
  local ld; ld=$(k8s_ldflags)
  for c in "$@"; do
    step "$c $K8S"
    (cd "$mod" && go build -ldflags "$ld" -o "$tmp/$c" "k8s.io/kubernetes/cmd/$c")
  done
  finish "$tmp" "$out"
}

build_kubernetes() {
  [ -f "$cache/kubernetes-$K8S/.complete" ] || step "kubernetes $K8S control plane (about 14 min cold)"
  build_k8s_cmds kubernetes kube-apiserver kube-controller-manager kube-scheduler kubectl
}
build_kubelet() { build_k8s_cmds kubelet kubelet; }
build_kube_proxy() { build_k8s_cmds kube-proxy kube-proxy; }
# Only the kind node image needs it (kind runs kubeadm init/join inside its nodes).
build_kubeadm() { build_k8s_cmds kubeadm kubeadm; }

build_helm() {
  local out="$cache/helm-$HELM"
  [ -f "$out/.complete" ] && return 0
  step "helm $HELM (about 4 min cold)"
  local tmp="$out.tmp"; rm -rf "$tmp"; mkdir -p "$tmp"
  GOBIN="$tmp" go install -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM" "helm.sh/helm/v3/cmd/helm@$HELM"
  finish "$tmp" "$out"
}

build_coredns() { # the kind node image's cluster DNS (kubeadm's addon); nothing else runs it
  local out="$cache/coredns-$COREDNS"
  [ -f "$out/.complete" ] && return 0
  step "coredns $COREDNS (about 8 min cold)"
  local tmp="$out.tmp"; rm -rf "$tmp"; mkdir -p "$tmp"
  GOBIN="$tmp" go install -ldflags "-s -w" "github.com/coredns/coredns@$COREDNS"
  finish "$tmp" "$out"
}

build_kind() {
  local out="$cache/kind-$KIND"
  [ -f "$out/.complete" ] && return 0
  step "kind $KIND (about 2 min cold)"
  local tmp="$out.tmp"; rm -rf "$tmp"; mkdir -p "$tmp"
  GOBIN="$tmp" go install "sigs.k8s.io/kind@$KIND"
  finish "$tmp" "$out"
}

# promtool lints and unit-tests the chart's alert rules. The module is tagged v0.<major><minor>.<patch>
# (v0.316.0 is Prometheus 3.16.0); the version is stamped so `promtool --version` names it.
build_promtool() {
  local out="$cache/promtool-$PROMTOOL"
  [ -f "$out/.complete" ] && return 0
  step "promtool $PROMTOOL (about 3 min cold)"
  local tmp="$out.tmp"; rm -rf "$tmp"; mkdir -p "$tmp"
  # remove_all_sd: promtool lints and tests rules; the service-discovery plugins (every cloud SDK)
  # would triple the build.
  GOBIN="$tmp" go install -tags remove_all_sd -ldflags "-s -w -X github.com/prometheus/common/version.Version=$PROMTOOL" \
    "github.com/prometheus/prometheus/cmd/promtool@$PROMTOOL"
  finish "$tmp" "$out"
}

for c in "$@"; do
  case "$c" in
    etcd) build_etcd ;; kwok) build_kwok ;; kubernetes) build_kubernetes ;;
    kubelet) build_kubelet ;; kube-proxy) build_kube_proxy ;; kubeadm) build_kubeadm ;; coredns) build_coredns ;; helm) build_helm ;;
    kind) build_kind ;; promtool) build_promtool ;;
    *) echo "unknown component: $c" >&2; exit 2 ;;
  esac
done
step "done: $*"
