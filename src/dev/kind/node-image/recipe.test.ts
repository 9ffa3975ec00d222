import { loadAll } from "js-yaml";
import { describe, expect, it } from "vitest";
import { cniManifest, IMAGE_IMPORT_UNIT, NODE_TOOLS_IMAGE, nodeImageImages } from "./recipe.ts";

const versions = { kubernetes: "v1.36.3", coredns: "v1.14.2" };
const tags = nodeImageImages(versions).flatMap((i) => i.tags);

describe("the kind node image's preloaded images", () => {
  // `kubeadm config images list --kubernetes-version v1.36.3` with our kubeadm build.
  it.each([
    "registry.k8s.io/kube-apiserver:v1.36.3",
    "registry.k8s.io/kube-controller-manager:v1.36.3",
    "registry.k8s.io/kube-scheduler:v1.36.3",
    "registry.k8s.io/kube-proxy:v1.36.3",
    "registry.k8s.io/coredns/coredns:v1.14.2",
    "registry.k8s.io/pause:3.10.2",
    "registry.k8s.io/etcd:3.6.8-0",
    // kind's containerd config names this sandbox image (images/base/files/etc/containerd/config.toml).
    "registry.k8s.io/pause:3.10",
    NODE_TOOLS_IMAGE,
  ])("answers to %s", (tag) => {
    expect(tags).toContain(tag);
  });

  it("gives each image its own file and no tag twice", () => {
    const files = nodeImageImages(versions).map((i) => i.file);
    expect(new Set(files).size).toBe(files.length);
    expect(new Set(tags).size).toBe(tags.length);
  });

  it("starts each static-binary image with the binary it carries", () => {
    for (const image of nodeImageImages(versions)) {
      if (image.source.kind === "binary")
        expect(image.entrypoint).toEqual([`/usr/local/bin/${image.source.binary}`]);
    }
  });
});

describe("the CNI manifest kind applies", () => {
  // kind replaces {{ .PodSubnet }} with Go's text/template when the marker line is present.
  const templated = cniManifest().replace("{{ .PodSubnet }}", "10.244.0.0/16");
  const docs = loadAll(templated) as { kind: string; spec?: { template: { spec: unknown } } }[];

  it("carries kind's template marker and parses as YAML once templated", () => {
    expect(cniManifest().startsWith("# would you kindly template this file\n")).toBe(true);
    expect(docs.map((d) => d.kind)).toEqual([
      "ClusterRole",
      "ClusterRoleBinding",
      "ServiceAccount",
      "DaemonSet",
    ]);
  });

  it("runs on every node's host network with the node tools image, never pulled", () => {
    const pod = docs[3]!.spec!.template.spec as {
      hostNetwork: boolean;
      tolerations: unknown[];
      containers: { image: string; imagePullPolicy: string; env: { name: string; value?: string }[] }[];
    };
    expect(pod.hostNetwork).toBe(true);
    expect(pod.tolerations).toEqual([{ operator: "Exists" }]);
    expect(pod.containers[0]!.image).toBe(NODE_TOOLS_IMAGE);
    expect(pod.containers[0]!.imagePullPolicy).toBe("Never");
    expect(pod.containers[0]!.env.find((e) => e.name === "POD_SUBNET")?.value).toBe("10.244.0.0/16");
  });
});

describe("the image import unit", () => {
  it("runs after containerd and before the kubelet", () => {
    expect(IMAGE_IMPORT_UNIT).toMatch(/^After=containerd\.service$/m);
    expect(IMAGE_IMPORT_UNIT).toMatch(/^Before=kubelet\.service$/m);
    expect(IMAGE_IMPORT_UNIT).toContain("--namespace=k8s.io images import");
  });
});
