// Parsing what the machine reports: dpkg, routes, cgroup and mount tables.
import { describe, expect, it } from "vitest";
import { cgroupPathIn, parseCgroupMounts, unescapeMount } from "./cgroups.ts";
import { mountsUnder } from "./mounts.ts";
import { cidrsOverlap, routeDestinations } from "./network.ts";

const MOUNTINFO = `27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
50 27 0:40 / /tmp/n/kubelet rw - ext4 /dev/vda rw
51 50 0:41 / /tmp/n/kubelet/pods/u1/volumes/kubernetes.io~projected/kube-api-access-x rw - tmpfs tmpfs rw
52 27 0:42 / /tmp/n/containerd/state/io.containerd.runtime.v2.task/k8s.io/abc/rootfs rw - overlay overlay rw
53 27 0:43 / /tmp/n2/kubelet rw - ext4 /dev/vda rw
54 27 0:44 / /tmp/with\\040space rw - tmpfs tmpfs rw`;

describe("routes", () => {
  it.each([
    ["10.213.0.0/24", "10.213.0.0/24", true],
    ["10.213.0.0/24", "10.213.1.0/24", false],
    ["10.0.0.0/8", "10.213.5.0/24", true],
    ["10.213.5.7", "10.213.5.0/24", true],
    ["192.0.2.0/24", "10.213.0.0/24", false],
  ])("%s and %s overlap: %s", (a, b, want) => {
    expect(cidrsOverlap(a, b)).toBe(want);
  });

  it("takes IPv4 destinations from `ip -j route`, without the default route and loopback", () => {
    const json = JSON.stringify([
      { dst: "default", gateway: "192.0.2.1" },
      { dst: "192.0.2.0/24", dev: "eth0" },
      { dst: "127.0.0.0/8", type: "local" },
      { dst: "10.213.0.1", type: "local" },
      { dst: "fe80::/64" },
    ]);
    expect(routeDestinations(json)).toEqual(["192.0.2.0/24", "10.213.0.1"]);
  });
});

describe("cgroups", () => {
  const mounts = parseCgroupMounts(MOUNTINFO);

  it("finds v1 hierarchies with their controllers and the v2 one", () => {
    expect(mounts).toEqual([
      { mountPoint: "/sys/fs/cgroup/cpu,cpuacct", version: 1, controllers: ["cpu", "cpuacct"] },
      { mountPoint: "/sys/fs/cgroup/memory", version: 1, controllers: ["memory"] },
      { mountPoint: "/sys/fs/cgroup/systemd", version: 1, controllers: ["xattr", "name=systemd"] },
      { mountPoint: "/sys/fs/cgroup/unified", version: 2, controllers: [] },
    ]);
  });

  it("reads a process's path in each hierarchy from /proc/<pid>/cgroup", () => {
    const own = "9:name=systemd:/\n4:memory:/process_api/abc\n2:cpu,cpuacct:/x\n0::/\n";
    const [cpu, memory, , unified] = mounts;
    expect(cgroupPathIn(own, cpu!)).toBe("/x");
    expect(cgroupPathIn(own, memory!)).toBe("/process_api/abc");
    expect(cgroupPathIn(own, unified!)).toBe("/");
  });
});

describe("mounts", () => {
  it("lists mounts under a directory deepest first, and not a sibling with the same prefix", () => {
    expect(mountsUnder("/tmp/n", MOUNTINFO)).toEqual([
      "/tmp/n/containerd/state/io.containerd.runtime.v2.task/k8s.io/abc/rootfs",
      "/tmp/n/kubelet/pods/u1/volumes/kubernetes.io~projected/kube-api-access-x",
      "/tmp/n/kubelet",
    ]);
  });

  it("unescapes octal escapes in mount points", () => {
    expect(unescapeMount("/tmp/with\\040space")).toBe("/tmp/with space");
    expect(mountsUnder("/tmp/with space", MOUNTINFO)).toEqual(["/tmp/with space"]);
  });
});
