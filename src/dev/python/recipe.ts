// What the Python SDK environment is made of, and the cache key that names it.
//
// Why a Debian trixie root filesystem run with chroot (and not Python on the host):
// - the SDK needs Python >= 3.12; this machine is Debian 12 (bookworm), whose python3 is 3.11,
//   and bookworm has no newer Python package (not in backports either);
// - trixie's python3.13 installed on the host would pull trixie's libc6 with it: the host's libc
//   and its python3 are CI's too, and are never replaced;
// - prebuilt interpreters (python.org, python-build-standalone through uv) come from hosts our
//   machines cannot reach, PyPI ships no interpreter, and building CPython from Debian's source
//   package takes long on 2 cores and needs a compiler toolchain;
// - so mmdebstrap (a Debian package) makes a minimal trixie root from the Debian mirror, with its
//   own libc beside the host's; nothing on the host changes but mmdebstrap itself. chroot keeps
//   the host's network namespace, so the SDK reaches servers on the host's loopback as is.
// pip installs exact pins (requirements.txt) as wheels only: no compiler in the root, and a
// platform without a wheel fails at install with pip's own message rather than building.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The pins and the Python scripts stay in the source tree (also when running from dist/).
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const here = path.join(packageRoot, "src", "dev", "python");

/** The pins pip installs; its text is part of the cache key. */
export const REQUIREMENTS_FILE = path.join(here, "requirements.txt");

/** The suite of the root: the first Debian release whose python3 is >= 3.12 (3.13). */
export const SUITE = "trixie";

/** The root's packages (mmdebstrap --variant=minbase adds only Essential ones), and why each. */
export const ROOT_PACKAGES: Record<string, string> = {
  python3: "the interpreter (3.13 in trixie)",
  "python3-venv": "python3 -m venv with pip (Debian's pip wheel, which trusts the system CA bundle)",
  "ca-certificates": "/etc/ssl/certs for TLS from the root (the host's bundle is mounted over it for pip)",
};

/** Bumped when the install steps change in a way the inputs below do not show. */
const RECIPE_VERSION = 1;

/** Paths inside the root. */
export const IN_ROOT = {
  venv: "/opt/venv",
  python: "/opt/venv/bin/python",
  requirements: "/opt/livepeer-operator/requirements.txt",
  /** Where run() mounts a script's folder (read-only). */
  scriptDir: "/opt/livepeer-operator/script",
} as const;

/** The Debian mirror the root comes from (LIVEPEER_OPERATOR_DEBIAN_MIRROR overrides). */
export function debianMirror(env: Record<string, string | undefined> = process.env): string {
  return env.LIVEPEER_OPERATOR_DEBIAN_MIRROR || "http://deb.debian.org/debian";
}

export interface Recipe {
  version: number;
  suite: string;
  packages: string[];
  requirements: string;
  arch: string;
}

export function recipe(requirements = readFileSync(REQUIREMENTS_FILE, "utf8"), arch = process.arch): Recipe {
  return {
    version: RECIPE_VERSION,
    suite: SUITE,
    packages: Object.keys(ROOT_PACKAGES).sort(),
    requirements,
    arch,
  };
}

/** The environment's cache folder name: changes whenever what is installed changes. */
export function recipeKey(r: Recipe): string {
  return `sdk-${createHash("sha256").update(JSON.stringify(r)).digest("hex").slice(0, 16)}`;
}

/** mmdebstrap making the root (man pages and docs left out, copyright files kept). */
export function mmdebstrapCommand(root: string, mirror: string): string[] {
  return [
    "mmdebstrap",
    "--variant=minbase",
    `--include=${Object.keys(ROOT_PACKAGES).join(",")}`,
    "--dpkgopt=path-exclude=/usr/share/doc/*",
    "--dpkgopt=path-include=/usr/share/doc/*/copyright",
    "--dpkgopt=path-exclude=/usr/share/man/*",
    SUITE,
    root,
    mirror,
  ];
}
