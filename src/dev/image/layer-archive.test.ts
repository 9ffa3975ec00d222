// Layers from directory trees and docker-save archives from layers: the tar structure, the
// manifest and config a runtime reads, and that the same input always gives the same bytes.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeDockerArchive } from "./archive.ts";
import { operatorImage } from "./images.ts";
import { walkTree, writeLayer } from "./layer.ts";
import { readArchive } from "./unpack.ts";

const dir = mkdtempSync(path.join(tmpdir(), "layer-archive-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** The same tree, its files created in the given order (so inode and readdir order differ). */
function makeTree(name: string, order: "forward" | "backward"): string {
  const root = path.join(dir, name);
  const files: [string, string, number][] = [
    ["usr/local/bin/node", "#!binary", 0o755],
    ["etc/passwd", "root:x:0:0::/root:/sbin/nologin\n", 0o644],
    ["app/dist/cli/main.js", "console.log('hi')\n", 0o644],
    ["app/Z.js", "upper case sorts before lower case\n", 0o644],
    ["app/a.js", "", 0o644],
  ];
  for (const [rel, content, mode] of order === "forward" ? files : [...files].reverse()) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
    chmodSync(path.join(root, rel), mode);
  }
  mkdirSync(path.join(root, "tmp"));
  chmodSync(path.join(root, "tmp"), 0o1777);
  mkdirSync(path.join(root, "home/nonroot"), { recursive: true });
  symlinkSync("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", path.join(root, "ld.so"));
  if (order === "backward") utimesSync(path.join(root, "etc/passwd"), 1e9, 1e9);
  return root;
}

const nonroot = (rel: string) => (rel.startsWith("home/nonroot") ? { uid: 65532, gid: 65532 } : undefined);

describe("image layer from a directory tree", () => {
  it("lists parents before children, siblings in byte order, owner root, mtime 0, the files' modes", async () => {
    const layer = await writeLayer(makeTree("t1", "forward"), path.join(dir, "t1.tar"), { ownerOf: nonroot });
    const listing = execFileSync("tar", ["-tvf", layer.file, "--numeric-owner", "--full-time"], {
      encoding: "utf8",
    })
      .trim()
      .split("\n")
      .map((l) => l.split(/\s+/))
      .map(([mode, owner, size, date, time, ...rest]) => ({
        mode,
        owner,
        size,
        date,
        time,
        name: rest.join(" "),
      }));
    expect(listing.map((e) => e.name)).toEqual([
      "app/",
      "app/Z.js",
      "app/a.js",
      "app/dist/",
      "app/dist/cli/",
      "app/dist/cli/main.js",
      "etc/",
      "etc/passwd",
      "home/",
      "home/nonroot/",
      "ld.so -> /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
      "tmp/",
      "usr/",
      "usr/local/",
      "usr/local/bin/",
      "usr/local/bin/node",
    ]);
    const byName = (n: string) => listing.find((e) => e.name === n)!;
    expect(byName("usr/local/bin/node")).toMatchObject({ mode: "-rwxr-xr-x", owner: "0/0", size: "8" });
    expect(byName("tmp/").mode).toBe("drwxrwxrwt");
    expect(byName("home/nonroot/").owner).toBe("65532/65532");
    expect(new Set(listing.map((e) => `${e.date} ${e.time}`))).toEqual(new Set(["1970-01-01 00:00:00"]));
    expect(layer.diffId).toBe(`sha256:${sha256(layer.file)}`);
    const fileBytes = listing.filter((e) => e.mode!.startsWith("-")).reduce((n, e) => n + Number(e.size), 0);
    expect(layer.contentBytes).toBe(fileBytes);
    expect(layer.entries).toBe(16);
  });

  it("gives the same bytes for the same tree, whatever the creation order and mtimes", async () => {
    const a = await writeLayer(makeTree("same-a", "forward"), path.join(dir, "same-a.tar"));
    const b = await writeLayer(makeTree("same-b", "backward"), path.join(dir, "same-b.tar"));
    expect(b.diffId).toBe(a.diffId);
    expect(readFileSync(b.file).equals(readFileSync(a.file))).toBe(true);
    writeFileSync(path.join(dir, "same-b/app/a.js"), "changed");
    const c = await writeLayer(path.join(dir, "same-b"), path.join(dir, "same-c.tar"));
    expect(c.diffId).not.toBe(a.diffId);
  });

  it("refuses what a layer cannot hold, naming the path", () => {
    const root = path.join(dir, "fifo");
    mkdirSync(root);
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    expect(() => walkTree(root)).toThrow(
      `${path.join(root, "pipe")} is neither a file, a directory nor a symlink`,
    );
  });
});

describe("docker-save archive from layers", () => {
  it("has manifest.json, the config and the layers a runtime reads, and the same bytes each time", async () => {
    const base = await writeLayer(makeTree("base", "forward"), path.join(dir, "base.tar"));
    const appTree = path.join(dir, "app-tree");
    mkdirSync(path.join(appTree, "app"), { recursive: true });
    writeFileSync(path.join(appTree, "app/package.json"), '{"type":"module"}');
    const app = await writeLayer(appTree, path.join(dir, "app.tar"));
    const { config } = operatorImage("9.9.9", "0123456789abcdef0123456789abcdef01234567");
    const spec = {
      repoTags: ["livepeer-operator:9.9.9"],
      layers: [base.file, app.file],
      config,
      architecture: "amd64",
    };

    const first = writeDockerArchive(path.join(dir, "img1.tar"), spec);
    const second = writeDockerArchive(path.join(dir, "img2.tar"), spec);
    expect(sha256(second.file)).toBe(sha256(first.file));
    expect(second.imageId).toBe(first.imageId);

    const listing = execFileSync("tar", ["-tf", first.file], { encoding: "utf8" }).trim().split("\n");
    const bare = (id: string) => id.replace(/^sha256:/, "");
    expect(listing).toEqual(
      expect.arrayContaining([
        "manifest.json",
        `${bare(first.imageId)}.json`,
        `${bare(base.diffId)}/layer.tar`,
        `${bare(app.diffId)}/layer.tar`,
      ]),
    );
    const { manifest, config: doc } = readArchive(first.file);
    expect(manifest).toEqual([
      {
        Config: `${bare(first.imageId)}.json`,
        RepoTags: ["livepeer-operator:9.9.9"],
        Layers: [`${bare(base.diffId)}/layer.tar`, `${bare(app.diffId)}/layer.tar`],
      },
    ]);
    const configFile = execFileSync("tar", ["-xOf", first.file, manifest[0]!.Config]);
    expect(`sha256:${createHash("sha256").update(configFile).digest("hex")}`).toBe(first.imageId);
    expect(doc).toMatchObject({
      architecture: "amd64",
      os: "linux",
      rootfs: { type: "layers", diff_ids: [base.diffId, app.diffId] },
      config: {
        Entrypoint: ["/usr/local/bin/node", "/app/dist/cli/main.js"],
        Cmd: ["help"],
        User: "65532:65532",
        WorkingDir: "/app",
      },
    });
    expect(doc.config.Env).toContain("NODE_ENV=production");
    // The layer inside the archive is the layer file, byte for byte.
    const inner = execFileSync("tar", ["-xOf", first.file, `${bare(app.diffId)}/layer.tar`], {
      maxBuffer: 1 << 26,
    });
    expect(inner.equals(readFileSync(app.file))).toBe(true);
  });
});
