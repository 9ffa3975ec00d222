// The project's own Docker: where it keeps things and how its daemons are started.
import { describe, expect, it } from "vitest";
import {
  containerdArgv,
  containerdConfigToml,
  dataRootFor,
  dockerdArgv,
  dockerHost,
  inNetns,
  privateDockerLayout,
} from "./layout.ts";

const layout = privateDockerLayout(
  "/root/.cache/livepeer-operator/docker/data",
  "/tmp/lpo-docker-ab12",
  4242,
);

describe("the project's own Docker daemon", () => {
  it.each([
    [["/root/.cache/livepeer-operator", undefined], "/root/.cache/livepeer-operator/docker/data"],
    [["/root/.cache/livepeer-operator", "/srv/docker-b"], "/srv/docker-b"],
    [["/c", "rel/dir"], `${process.cwd()}/rel/dir`],
  ] as const)("data root from cache %j", ([cache, override], expected) => {
    expect(dataRootFor(cache, override)).toBe(expected);
  });

  it("keeps the data root cached and everything else (sockets, exec root, containerd) in the run's directory", () => {
    expect(layout).toMatchObject({
      lockFile: "/root/.cache/livepeer-operator/docker/data.lock",
      execRoot: "/tmp/lpo-docker-ab12/exec",
      dockerSocket: "/tmp/lpo-docker-ab12/docker.sock",
      containerdSocket: "/tmp/lpo-docker-ab12/containerd/containerd.sock",
      netns: "lpo-docker-4242",
      netnsPath: "/run/netns/lpo-docker-4242",
    });
    expect(dockerHost(layout)).toBe("unix:///tmp/lpo-docker-ab12/docker.sock");
    // Unix socket paths are limited to 107 bytes.
    expect(layout.containerdSocket.length).toBeLessThan(108);
  });

  it.each([
    [inNetns(layout, ["kubectl", "get", "nodes"]), ["kubectl", "get", "nodes"]],
    [containerdArgv(layout), ["containerd", "--config", "/tmp/lpo-docker-ab12/containerd/config.toml"]],
    [
      dockerdArgv(layout),
      [
        "dockerd",
        "--containerd",
        "/tmp/lpo-docker-ab12/containerd/containerd.sock",
        "--data-root",
        "/root/.cache/livepeer-operator/docker/data",
        "--exec-root",
        "/tmp/lpo-docker-ab12/exec",
        "--host",
        "unix:///tmp/lpo-docker-ab12/docker.sock",
        "--pidfile",
        "/tmp/lpo-docker-ab12/dockerd.pid",
      ],
    ],
  ])(
    "runs %j in our network namespace with nsenter --net (ip netns exec would remount /sys)",
    (argv, inner) => {
      expect(argv.slice(0, 3)).toEqual(["nsenter", "--net=/run/netns/lpo-docker-4242", "--"]);
      expect(argv.slice(3, 3 + inner.length)).toEqual(inner);
    },
  );

  it("gives containerd its own root, state, socket and opt dir, without the CRI plugin", () => {
    const toml = containerdConfigToml(layout);
    expect(toml).toContain('root = "/tmp/lpo-docker-ab12/containerd/root"');
    expect(toml).toContain('state = "/tmp/lpo-docker-ab12/containerd/state"');
    expect(toml).toContain('address = "/tmp/lpo-docker-ab12/containerd/containerd.sock"');
    expect(toml).toContain('path = "/tmp/lpo-docker-ab12/containerd/opt"');
    expect(toml).toContain('disabled_plugins = ["io.containerd.grpc.v1.cri"]');
  });
});
