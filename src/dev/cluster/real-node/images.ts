// The images a real node needs and no registry can give it: the pod sandbox ("pause") image,
// a static binary that sleeps until SIGTERM (built with Go, which the toolchain needs anyway),
// and a tiny busybox image for tests. Both are written as docker-archive tarballs, cached by
// content, and imported into the node's containerd.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeDockerArchive } from "../../image/archive.ts";
import { type TarEntry, tar } from "../../image/tar.ts";
import { cacheDir } from "../../toolchain/binaries.ts";

/** The names containerd stores them under (docker-archive tags are normalised to docker.io/...). */
export const PAUSE_IMAGE = "docker.io/livepeer-operator/pause:dev";
export const BUSYBOX_IMAGE = "docker.io/livepeer-operator/busybox:dev";

const PAUSE_SOURCE = `// The pod sandbox process: holds the pod's namespaces, reaps zombies, exits on SIGTERM/SIGINT.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 8)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range c {
		if s != syscall.SIGCHLD {
			return
		}
		for {
			if pid, _ := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); pid <= 0 {
				break
			}
		}
	}
}
`;

function imagesDir(): string {
  const dir = path.join(cacheDir(), "images");
  mkdirSync(dir, { recursive: true });
  return dir;
}

function shortHash(...parts: (string | Buffer)[]): string {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest("hex").slice(0, 16);
}

function goVersion(): string {
  try {
    return execFileSync("go", ["env", "GOVERSION"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error("the pause image is built with Go: install Go >= 1.25 (the toolchain needs it too)");
  }
}

/** The pause image archive (built once per source and Go version, then cached). */
export function pauseImageArchive(): string {
  const file = path.join(imagesDir(), `pause-${shortHash(PAUSE_SOURCE, goVersion())}.tar`);
  if (existsSync(file)) return file;
  const work = mkdtempSync(path.join(os.tmpdir(), "lpo-pause-"));
  try {
    writeFileSync(path.join(work, "go.mod"), "module pause\n\ngo 1.22\n");
    writeFileSync(path.join(work, "main.go"), PAUSE_SOURCE);
    execFileSync("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", "pause", "."], {
      cwd: work,
      env: { ...process.env, CGO_ENABLED: "0", GOTOOLCHAIN: "local", GOFLAGS: "-buildvcs=false" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const layer = tar([{ path: "pause", content: readFileSync(path.join(work, "pause")), mode: 0o755 }]);
    writeDockerArchive(file, {
      repoTags: [PAUSE_IMAGE.replace(/^docker\.io\//, "")],
      layers: [layer],
      config: { entrypoint: ["/pause"], user: "65535:65535" },
    });
    return file;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A busybox image from Debian's busybox-static (every applet linked in /bin, so `sh`, `env`,
 * `httpd`, `nc` ... exist), for tests that need a real process in a real pod.
 */
export function busyboxImageArchive(busybox = "/bin/busybox"): string {
  const binary = readFileSync(busybox);
  const file = path.join(imagesDir(), `busybox-${shortHash(binary)}.tar`);
  if (existsSync(file)) return file;
  const applets = execFileSync(busybox, ["--list"], { encoding: "utf8" })
    .split("\n")
    .map((a) => a.trim())
    .filter((a) => a && a !== "busybox" && /^[a-z0-9_.[-]+$/i.test(a));
  const entries: TarEntry[] = [
    { path: "bin", type: "dir" },
    { path: "bin/busybox", content: binary, mode: 0o755 },
    ...applets.map((a): TarEntry => ({ path: `bin/${a}`, type: "symlink", target: "busybox" })),
    { path: "etc", type: "dir" },
    {
      path: "etc/passwd",
      content: "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n",
    },
    { path: "etc/group", content: "root:x:0:\nnogroup:x:65534:\n" },
    { path: "root", type: "dir", mode: 0o700 },
    { path: "tmp", type: "dir", mode: 0o1777 },
    { path: "www", type: "dir" },
  ];
  writeDockerArchive(file, {
    repoTags: [BUSYBOX_IMAGE.replace(/^docker\.io\//, "")],
    layers: [tar(entries)],
    config: { cmd: ["/bin/sh"], env: ["PATH=/bin"] },
  });
  return file;
}
