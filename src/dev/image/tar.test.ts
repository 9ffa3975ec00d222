// The tar and docker-archive writers, read back by GNU tar (an independent reader) and checked
// against the docker-save format's own invariants (config digest = image id, diff_id = layer digest).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeDockerArchive } from "./archive.ts";
import { tar, tarHeader } from "./tar.ts";

const work = mkdtempSync(path.join(os.tmpdir(), "lpo-tar-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function gnuTar(file: string, args: string[]): string {
  return execFileSync("tar", [...args, "-f", file], { encoding: "utf8" });
}

const longDir = `${"d".repeat(60)}/${"e".repeat(60)}`;
const entries = [
  { path: "bin", type: "dir" as const },
  { path: "bin/tool", content: "#!/bin/sh\necho hi\n", mode: 0o755 },
  { path: "bin/sh", type: "symlink" as const, target: "tool" },
  { path: "tmp", type: "dir" as const, mode: 0o1777 },
  { path: `${longDir}/file.txt`, content: Buffer.alloc(1000, 7), uid: 65532, gid: 65532 },
];

describe("tar writer", () => {
  it("writes an archive GNU tar lists with types, modes, owners and fixed mtimes", () => {
    const file = path.join(work, "a.tar");
    writeFileSync(file, tar(entries));
    const listing = gnuTar(file, ["-tv", "--numeric-owner", "--utc"]).trim().split("\n");
    expect(listing[0]).toMatch(/^drwxr-xr-x 0\/0 +0 1970-01-01 00:00 bin\/$/);
    expect(listing[1]).toMatch(/^-rwxr-xr-x 0\/0 +18 1970-01-01 00:00 bin\/tool$/);
    expect(listing[2]).toMatch(/^lrwxr-xr-x 0\/0 +0 1970-01-01 00:00 bin\/sh -> tool$/);
    expect(listing[3]).toMatch(/^drwxrwxrwt 0\/0 +0 .* tmp\/$/);
    expect(listing[4]).toMatch(new RegExp(`^-rw-r--r-- 65532/65532 +1000 .* ${longDir}/file.txt$`));
    expect(gnuTar(file, ["-xO", "bin/tool"])).toBe("#!/bin/sh\necho hi\n");
  });

  it("is deterministic: the same entries give the same bytes", () => {
    expect(createHash("sha256").update(tar(entries)).digest("hex")).toBe(
      createHash("sha256").update(tar(entries)).digest("hex"),
    );
  });

  it("refuses what ustar cannot hold instead of writing a broken archive", () => {
    expect(() => tarHeader({ path: "x".repeat(101) }, 0)).toThrow(/too long for a ustar header/);
    expect(() => tarHeader({ path: "/abs" }, 0)).toThrow(/must be relative/);
    expect(() => tarHeader({ path: "l", type: "symlink" }, 0)).toThrow(/no target/);
  });
});

describe("docker archive writer", () => {
  it("writes manifest.json, a config whose digest is the image id, and layers whose digests are the diff_ids", () => {
    const layerA = tar([{ path: "a", content: "A" }]);
    const layerFile = path.join(work, "layer-b.tar");
    writeFileSync(layerFile, tar([{ path: "b", content: "B" }]));
    const out = path.join(work, "image.tar");
    const written = writeDockerArchive(out, {
      repoTags: ["livepeer-operator/test:dev"],
      layers: [layerA, layerFile],
      config: { entrypoint: ["/a"], env: ["PATH=/bin"], user: "65532:65532", exposedPorts: ["8080/tcp"] },
    });
    const manifest = JSON.parse(gnuTar(out, ["-xO", "manifest.json"]));
    expect(manifest).toHaveLength(1);
    expect(manifest[0].RepoTags).toEqual(["livepeer-operator/test:dev"]);
    const configText = gnuTar(out, ["-xO", manifest[0].Config]);
    expect(`sha256:${createHash("sha256").update(configText).digest("hex")}`).toBe(written.imageId);
    const config = JSON.parse(configText);
    expect(config).toMatchObject({
      os: "linux",
      config: {
        Entrypoint: ["/a"],
        Env: ["PATH=/bin"],
        User: "65532:65532",
        ExposedPorts: { "8080/tcp": {} },
      },
    });
    const layers = manifest[0].Layers.map((l: string) =>
      createHash("sha256")
        .update(execFileSync("tar", ["-xOf", out, l]))
        .digest("hex"),
    );
    expect(config.rootfs.diff_ids).toEqual(layers.map((h: string) => `sha256:${h}`));
    expect(written.diffIds).toEqual(config.rootfs.diff_ids);
    expect(readFileSync(out).length).toBe(written.bytes);
  });

  it("gives the same image id for the same content", () => {
    const spec = { repoTags: ["x/y:z"], layers: [tar([{ path: "f", content: "1" }])] };
    expect(writeDockerArchive(path.join(work, "1.tar"), spec).imageId).toBe(
      writeDockerArchive(path.join(work, "2.tar"), spec).imageId,
    );
  });

  it("names the bad field when a tag is not an image reference", () => {
    expect(() =>
      writeDockerArchive(path.join(work, "bad.tar"), { repoTags: ["Bad Tag"], layers: [tar([])] }),
    ).toThrow(/repoTags: 'Bad Tag' is not an image reference/);
  });
});
