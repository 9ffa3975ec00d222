import { describe, expect, it } from "vitest";
import { installCommand, missingPackages } from "./packages.ts";

describe("Debian packages", () => {
  it("are missing unless dpkg says installed (not-installed and config-files count as missing)", () => {
    const status = "containerd installed\nrunc not-installed\nbusybox-static config-files\n";
    expect(
      missingPackages(["containerd", "runc", "busybox-static", "containernetworking-plugins"], status),
    ).toEqual(["runc", "busybox-static", "containernetworking-plugins"]);
    expect(missingPackages(["containerd"], "containerd installed\n")).toEqual([]);
  });

  it("install without recommends, non-interactively", () => {
    expect(installCommand(["runc"])).toEqual(["apt-get", "install", "-y", "--no-install-recommends", "runc"]);
  });
});
