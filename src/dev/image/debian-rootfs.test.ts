import { describe, expect, it } from "vitest";
import { etcFiles, isPruned, NONROOT, parseAptShow, ROOTFS_PACKAGES } from "./debian-rootfs.ts";

const APT_SHOW = `Package: libc6
Version: 2.36-9+deb12u14
Installed-Size: 12986
Architecture: amd64
Depends: libgcc-s1
Filename: pool/main/g/glibc/libc6_2.36-9+deb12u14_amd64.deb
Size: 2759320
SHA256: 0f7c3a4e0d4b8a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f
Description: GNU C Library: Shared libraries

Package: libstdc++6
Version: 12.2.0-14+deb12u1
Architecture: amd64
Filename: pool/main/g/gcc-12/libstdc++6_12.2.0-14+deb12u1_amd64.deb
SHA256: 1111111111111111111111111111111111111111111111111111111111111111
`;

describe("Debian root filesystem", () => {
  it("reads name, version, architecture, checksum and pool file of each package", () => {
    expect(parseAptShow(APT_SHOW)).toEqual([
      {
        name: "libc6",
        version: "2.36-9+deb12u14",
        architecture: "amd64",
        sha256: "0f7c3a4e0d4b8a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f",
        filename: "pool/main/g/glibc/libc6_2.36-9+deb12u14_amd64.deb",
      },
      {
        name: "libstdc++6",
        version: "12.2.0-14+deb12u1",
        architecture: "amd64",
        sha256: "1111111111111111111111111111111111111111111111111111111111111111",
        filename: "pool/main/g/gcc-12/libstdc++6_12.2.0-14+deb12u1_amd64.deb",
      },
    ]);
  });

  it("names the missing field of a stanza", () => {
    expect(() => parseAptShow("Package: libc6\nVersion: 1\nArchitecture: amd64\nFilename: x.deb\n")).toThrow(
      "package libc6 has no sha256 field",
    );
  });

  it("installs only what Node's binary links, the copyright of libgcc/libstdc++, and dash for the liveness probe", () => {
    expect(Object.keys(ROOTFS_PACKAGES)).toEqual(["libc6", "libgcc-s1", "libstdc++6", "gcc-12-base", "dash"]);
  });

  it.each([
    ["usr/share/doc/libc6/changelog.Debian.gz", true],
    ["usr/share/doc/libc6/copyright", false],
    ["usr/share/doc/libc6", false],
    ["usr/share/doc/libstdc++6", false], // a link to gcc-12-base's directory, which stays
    ["usr/share/lintian/overrides/libc6", true],
    ["usr/share/gcc/python/libstdcxx/__init__.py", true],
    ["usr/share/gdb", true],
    ["usr/lib/x86_64-linux-gnu/gconv/UTF-16.so", true],
    ["usr/lib/aarch64-linux-gnu/gconv", true],
    ["etc/ld.so.conf.d/x86_64-linux-gnu.conf", true],
    ["lib/x86_64-linux-gnu/libc.so.6", false],
    ["lib64/ld-linux-x86-64.so.2", false],
    ["usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", false],
  ])("%s pruned: %s", (p, pruned) => {
    expect(isPruned(p)).toBe(pruned);
  });

  it("has the non-root user 65532 and its group, and hosts from files then DNS", () => {
    const etc = etcFiles();
    expect(etc["etc/passwd"]).toContain(`nonroot:x:65532:65532:nonroot:${NONROOT.home}:/sbin/nologin\n`);
    expect(etc["etc/passwd"]).toMatch(/^root:x:0:0:/);
    expect(etc["etc/group"]).toContain("nonroot:x:65532:\n");
    expect(etc["etc/nsswitch.conf"]).toContain("hosts: files dns\n");
  });
});
