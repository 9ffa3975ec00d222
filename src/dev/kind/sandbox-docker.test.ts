// The sandbox docker wrapper: --privileged becomes every capability but CAP_SYS_RESOURCE.
import { describe, expect, it } from "vitest";
import { refusedPrivileged, SANDBOX_PRIVILEGES, sandboxDockerArgs } from "./sandbox-docker.ts";

describe("kind's docker calls in a restricted sandbox", () => {
  it.each([
    [
      ["run", "--privileged", "--name", "n1", "img"],
      ["run", ...SANDBOX_PRIVILEGES, "--name", "n1", "img"],
    ],
    [
      ["create", "--privileged", "img"],
      ["create", ...SANDBOX_PRIVILEGES, "img"],
    ],
    [
      ["exec", "--privileged", "-i", "n1", "ctr", "images", "import", "-"],
      ["exec", "-i", "n1", "ctr", "images", "import", "-"],
    ],
    [
      ["run", "--privileged", "img", "sh", "-c", "echo --privileged"],
      ["run", ...SANDBOX_PRIVILEGES, "img", "sh", "-c", "echo --privileged"],
    ],
    [
      ["pull", "--privileged"],
      ["pull", "--privileged"],
    ],
    [
      ["ps", "-a"],
      ["ps", "-a"],
    ],
    [
      ["inspect", "n1"],
      ["inspect", "n1"],
    ],
  ])("docker %j becomes %j", (args, expected) => {
    expect(sandboxDockerArgs(args)).toEqual(expected);
  });

  it("keeps every capability but CAP_SYS_RESOURCE, unconfined, with all devices, never the host's cgroups", () => {
    const flags = SANDBOX_PRIVILEGES.join(" ");
    expect(flags).toContain("--cap-add ALL --cap-drop SYS_RESOURCE");
    expect(flags).toContain("seccomp=unconfined");
    expect(flags).toContain("apparmor=unconfined");
    expect(flags).toContain("--device-cgroup-rule a *:* rwm");
    expect(flags).not.toContain("/sys/fs/cgroup");
    expect(flags).toContain("--device /dev/kmsg");
  });

  it("recognizes runc's refusal of a privileged container", () => {
    expect(
      refusedPrivileged(
        "docker: Error response from daemon: failed to create shim: OCI runtime create failed: runc create failed: unable to apply caps: operation not permitted: unknown.",
      ),
    ).toBe(true);
    expect(refusedPrivileged("Unable to find image 'kindest/node:v1.36.3' locally")).toBe(false);
  });
});
