// /app of the image: the compiled CLI (dist/), production node_modules, the generated CRDs and
// the toolchain's pinned versions, staged in a directory of its own (the checkout's dist/ is
// left alone: bin/livepeer-operator.js would prefer a stale one over the sources).
//
// Left out of node_modules, and why:
// - hardhat (and its tree: @nomicfoundation/*, native EDR binaries, ~230 MB) and @livepeer/sdk
//   (the protocol's compiled contracts): only `devnet up` uses them, to run a dev chain on the
//   machine's loopback and deploy the protocol onto it. That is a developer tool; in a pod it
//   has no use (and no writable directory). `devnet` in the image says how to get it.
// - files Node never loads at run time: TypeScript sources and declarations (*.ts, *.d.ts: Node
//   refuses to strip types under node_modules), source maps, Markdown other than licenses,
//   node_modules/.bin (npm's command shims; nothing here runs them) and the @types scope.
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { BUILD_INFO_FILE, type BuildInfo } from "../../release/version.ts";

/** Runtime dependencies the operator image does not carry, with the reason. */
export const OMITTED_DEPENDENCIES: Record<string, string> = {
  hardhat: "only 'devnet up' runs it (a dev chain on the machine's loopback): a developer tool",
  "@livepeer/sdk": "only 'devnet up' reads it (the protocol contracts it deploys)",
};

interface PackageJson {
  name: string;
  version: string;
  type?: string;
  dependencies?: Record<string, string>;
  [key: string]: unknown;
}

/** The package.json the image carries: what Node reads at run time (type: module, version). */
export function runtimePackageJson(pkg: PackageJson): PackageJson {
  const dependencies = Object.fromEntries(
    Object.entries(pkg.dependencies ?? {}).filter(([name]) => !(name in OMITTED_DEPENDENCIES)),
  );
  const out: PackageJson = { name: pkg.name, version: pkg.version };
  for (const key of ["description", "license", "type", "engines"])
    if (pkg[key] !== undefined) out[key] = pkg[key];
  out.dependencies = dependencies;
  return out;
}

/** Whether a path under node_modules (relative to it) is kept. */
export function keptInNodeModules(relPath: string, isDirectory: boolean): boolean {
  const base = relPath.slice(relPath.lastIndexOf("/") + 1);
  if (isDirectory) return relPath !== ".bin" && relPath !== "@types";
  if (/\.(d\.[mc]?ts|[mc]?ts|map|tsbuildinfo)$/.test(base)) return false;
  if (/\.(md|markdown)$/i.test(base)) return /^(licen[cs]e|notice|copying)/i.test(base);
  return true;
}

/** Files of the project the image carries besides dist/ and node_modules, relative to its root. */
export const PROJECT_FILES = [
  "deploy/crds",
  // Read when the `cluster` command's module loads (`help` loads every command).
  "src/dev/toolchain/versions.json",
  "src/dev/toolchain/build-binaries.sh",
  // The node's wire protocol, loaded at run time by src/node/wire/messages.ts, and its licence.
  "src/node/wire/lp_rpc.proto",
  "src/node/wire/LICENSE-go-livepeer",
];

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): void {
  try {
    execFileSync(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer; message: string };
    const output = `${e.stdout?.toString() ?? ""}${e.stderr?.toString() ?? ""}`.trim();
    throw new Error(`${cmd} ${args.join(" ")} (in ${cwd}) failed:\n${output.slice(-4000) || e.message}`);
  }
}

function strip(dir: string, rel = ""): void {
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (!keptInNodeModules(child, entry.isDirectory()))
      rmSync(path.join(dir, child), { recursive: true, force: true });
    else if (entry.isDirectory()) strip(dir, child);
  }
}

export interface StageAppOptions {
  projectRoot: string;
  /** The tree root: the app goes to `<tree>/app`. */
  tree: string;
  /** The Node 24 binary that runs tsc (the machine's node may be older). */
  node: string;
  /** The commit the app is built from, recorded in /app/build-info.json (`livepeer-operator version`). */
  commit: string;
  log: (line: string) => void;
}

/** Builds the app into `<tree>/app`. */
export function stageApp(o: StageAppOptions): void {
  const app = path.join(o.tree, "app");
  mkdirSync(app, { recursive: true });
  // Node 24 first on PATH, as in npm scripts: npm and tsc then run on it.
  const env = { ...process.env, PATH: `${path.dirname(o.node)}:${process.env.PATH ?? ""}` };
  const pkg = JSON.parse(readFileSync(path.join(o.projectRoot, "package.json"), "utf8")) as PackageJson;
  writeFileSync(path.join(app, "package.json"), `${JSON.stringify(runtimePackageJson(pkg), null, 2)}\n`);
  // The image has no .git: the version command reads the commit from here.
  const info: BuildInfo = { version: pkg.version, commit: o.commit };
  writeFileSync(path.join(app, BUILD_INFO_FILE), `${JSON.stringify(info, null, 2)}\n`);
  copyFileSync(path.join(o.projectRoot, "package-lock.json"), path.join(app, "package-lock.json"));

  o.log("[image] npm install --omit=dev (production dependencies, from the lockfile)");
  run(
    "npm",
    [
      "install",
      "--omit=dev",
      "--ignore-scripts",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
    ],
    app,
    env,
  );
  rmSync(path.join(app, "package-lock.json")); // npm rewrote it without the omitted packages; not needed at run time
  strip(path.join(app, "node_modules"));

  o.log("[image] tsc -p tsconfig.build.json (into the staging directory)");
  const tsc = path.join(o.projectRoot, "node_modules", "typescript", "bin", "tsc");
  run(
    o.node,
    [tsc, "-p", "tsconfig.build.json", "--outDir", path.join(app, "dist"), "--sourceMap", "false"],
    o.projectRoot,
    env,
  );

  for (const rel of PROJECT_FILES) {
    mkdirSync(path.dirname(path.join(app, rel)), { recursive: true });
    cpSync(path.join(o.projectRoot, rel), path.join(app, rel), { recursive: true });
  }
}
