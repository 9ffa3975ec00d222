// The image's root filesystem from Debian packages, without a registry: `apt-get download` of
// exactly the libraries Node's binary links (libc6, libgcc-s1, libstdc++6; gcc-12-base only for
// the copyright file of the last two), and dash for the node pods' exec liveness probe, unpacked
// with `dpkg-deb -x` (no maintainer scripts, no dpkg database: the image has no apt or dpkg; /bin/sh
// is the one link dash's postinst would have made), then what no process reads is removed.
//
// Left out on purpose:
// - ca-certificates: Node verifies TLS against its own built-in Mozilla root store, not
//   /etc/ssl; the Kubernetes API's CA comes from the service account mount. (`dpkg-deb -x`
//   would not build the bundle anyway: that is a maintainer script's job.)
// - tzdata: Node's full ICU carries the time zone database (TZ=America/New_York works without
//   /usr/share/zoneinfo, checked in the image); our logs are UTC.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";

/** The packages the root filesystem is made of, and why each is there. */
export const ROOTFS_PACKAGES: Record<string, string> = {
  libc6: "glibc and the dynamic loader: node links libc, libm, libdl, libpthread",
  "libgcc-s1": "libgcc_s.so.1: node links it (C++ exception unwinding)",
  "libstdc++6": "libstdc++.so.6: node is a C++ program",
  "gcc-12-base": "only /usr/share/doc/gcc-12-base/copyright, the license of libgcc-s1 and libstdc++6",
  dash: "/bin/sh for the node pods' exec liveness probe (the in-place restart, src/controller/node-pod/in-place.ts), as in go-livepeer's Ubuntu image; builtins only",
};

export interface DebPackage {
  name: string;
  version: string;
  architecture: string;
  sha256: string;
  /** Pool path from the package index; its base name is what `apt-get download` writes. */
  filename: string;
}

/** Parses `apt-cache show --no-all-versions` output (one stanza per package). */
export function parseAptShow(text: string): DebPackage[] {
  return text
    .split(/\n\s*\n/)
    .map((stanza) => {
      const field = (name: string) => stanza.match(new RegExp(`^${name}: *(.+)$`, "m"))?.[1]?.trim();
      const name = field("Package");
      if (!name) return undefined;
      const pkg = {
        name,
        version: field("Version") ?? "",
        architecture: field("Architecture") ?? "",
        sha256: field("SHA256") ?? "",
        filename: field("Filename") ?? "",
      };
      for (const [key, value] of Object.entries(pkg)) {
        if (!value) throw new Error(`apt-cache show: package ${name} has no ${key} field`);
      }
      return pkg;
    })
    .filter((p): p is DebPackage => p !== undefined);
}

/**
 * What is removed after unpacking, with the reason; paths relative to the root. Copyright files
 * stay (the packages' licenses travel with the binaries).
 */
export const PRUNED: { pattern: RegExp; why: string }[] = [
  { pattern: /^usr\/share\/doc\/[^/]+\/(?!copyright$)/, why: "changelogs and docs (copyright files stay)" },
  {
    pattern: /^usr\/share\/(lintian|gdb|gcc|man|info)(\/|$)/,
    why: "lintian overrides, gdb pretty printers, manuals",
  },
  {
    pattern: /^usr\/lib\/[^/]+-linux-gnu\/gconv(\/|$)/,
    why: "iconv modules (8 MB): Node converts text with ICU",
  },
  {
    pattern: /^etc\/ld\.so\.conf\.d(\/|$)/,
    why: "no ldconfig runs in the image; the loader's default paths suffice",
  },
];

export function isPruned(relPath: string): boolean {
  return PRUNED.some((p) => p.pattern.test(relPath));
}

/** The non-root account the image runs as: distroless's `nonroot`, 65532. */
export const NONROOT = { name: "nonroot", uid: 65532, gid: 65532, home: "/home/nonroot" } as const;

/** /etc files the image needs: users and groups for getpwuid, and NSS order for getaddrinfo. */
export function etcFiles(): Record<string, string> {
  return {
    "etc/passwd": [
      "root:x:0:0:root:/root:/sbin/nologin",
      "nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin",
      `${NONROOT.name}:x:${NONROOT.uid}:${NONROOT.gid}:${NONROOT.name}:${NONROOT.home}:/sbin/nologin`,
      "",
    ].join("\n"),
    "etc/group": ["root:x:0:", "nobody:x:65534:", `${NONROOT.name}:x:${NONROOT.gid}:`, ""].join("\n"),
    // Kubernetes mounts /etc/hosts and /etc/resolv.conf; files first, as in Debian.
    "etc/nsswitch.conf": ["passwd: files", "group: files", "hosts: files dns", ""].join("\n"),
  };
}

/** Empty directories a container expects (runtimes mount over /proc, /sys, /dev). */
export const SKELETON_DIRS: { path: string; mode: number }[] = [
  { path: "tmp", mode: 0o1777 },
  { path: "proc", mode: 0o555 },
  { path: "sys", mode: 0o555 },
  { path: "dev", mode: 0o755 },
  { path: "home/nonroot", mode: 0o700 },
  { path: "usr/local/bin", mode: 0o755 },
];

function aptError(err: unknown, what: string): Error {
  const stderr = String((err as { stderr?: unknown }).stderr ?? "").trim();
  return new Error(
    `${what} failed: ${stderr || (err as Error).message}\n` +
      "The image's root filesystem comes from Debian packages: this needs a Debian/Ubuntu machine with " +
      "package lists (run 'apt-get update' as root if they are missing).",
  );
}

/** The exact packages `apt-get download` would fetch now (the candidate versions). */
export function resolvePackages(names: readonly string[] = Object.keys(ROOTFS_PACKAGES)): DebPackage[] {
  let text: string;
  try {
    text = execFileSync("apt-cache", ["show", "--no-all-versions", ...names], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    throw aptError(err, `apt-cache show ${names.join(" ")}`);
  }
  const pkgs = parseAptShow(text);
  const missing = names.filter((n) => !pkgs.some((p) => p.name === n));
  if (missing.length > 0)
    throw aptError(new Error(`no candidate for ${missing.join(", ")}`), "apt-cache show");
  return names.map((n) => pkgs.find((p) => p.name === n)!);
}

const sha256File = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** Downloads the packages into `dir` (kept there: a second build downloads nothing). Returns the .deb paths. */
export function downloadPackages(
  pkgs: readonly DebPackage[],
  dir: string,
  log: (l: string) => void,
): string[] {
  mkdirSync(dir, { recursive: true });
  const fileOf = (p: DebPackage) => path.join(dir, path.basename(p.filename));
  const wanted = pkgs.filter((p) => !(existsSync(fileOf(p)) && sha256File(fileOf(p)) === p.sha256));
  if (wanted.length > 0) {
    log(`[image] apt-get download ${wanted.map((p) => `${p.name}=${p.version}`).join(" ")}`);
    try {
      // As root, apt hands the download to the `_apt` user, who cannot write our directory.
      execFileSync(
        "apt-get",
        ["-o", "APT::Sandbox::User=root", "download", ...wanted.map((p) => `${p.name}=${p.version}`)],
        { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
      );
    } catch (err) {
      throw aptError(err, "apt-get download");
    }
  }
  return pkgs.map((p) => {
    const file = fileOf(p);
    if (!existsSync(file)) throw new Error(`apt-get download did not write ${file}`);
    if (sha256File(file) !== p.sha256) {
      throw new Error(`${file}: SHA256 differs from the package index; delete it and build again`);
    }
    return file;
  });
}

/** Unpacks the packages into `root` and removes what is pruned. */
export function unpackPackages(debs: readonly string[], root: string): void {
  mkdirSync(root, { recursive: true });
  for (const deb of debs) {
    try {
      execFileSync("dpkg-deb", ["-x", deb, root], { stdio: ["ignore", "pipe", "pipe"] });
    } catch (err) {
      throw aptError(err, `dpkg-deb -x ${deb}`);
    }
  }
  prune(root, "");
}

function prune(root: string, rel: string): void {
  for (const name of readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${name.name}` : name.name;
    if (isPruned(child)) rmSync(path.join(root, child), { recursive: true, force: true });
    else if (name.isDirectory()) prune(root, child);
  }
}

/** Adds the /etc files and the skeleton directories. */
export function addSkeleton(root: string): void {
  for (const dir of SKELETON_DIRS) {
    mkdirSync(path.join(root, dir.path), { recursive: true });
    chmodSync(path.join(root, dir.path), dir.mode); // mkdir's mode is cut by the umask (1777 -> 1755)
  }
  for (const [file, content] of Object.entries(etcFiles())) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content, { mode: 0o644 });
  }
  // dash's postinst makes /bin/sh; dpkg-deb -x runs no maintainer script.
  const sh = path.join(root, "bin", "sh");
  if (existsSync(path.join(root, "bin", "dash")) && !existsSync(sh)) symlinkSync("dash", sh);
}
