// The operator's version and the commit it was built from. In a checkout the commit is git's
// HEAD; in an image (no .git) it is the build-info.json the image build wrote beside
// package.json (src/dev/image/app-tree.ts), so an installed operator still knows its commit.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Written by the image build at the app's root, beside package.json. */
export const BUILD_INFO_FILE = "build-info.json";

export interface BuildInfo {
  version: string;
  /** Full commit hash, with "-dirty" when the tree had uncommitted changes; "unknown" when neither git nor build-info.json says. */
  commit: string;
}

/** The app's root: the repository in a checkout (src/release/..), /app in the image (dist/release/..). */
export function appRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
}

/** HEAD of the git checkout at `root` (with "-dirty" for uncommitted changes), or undefined outside one. */
export function gitCommit(root: string): string | undefined {
  try {
    const run = (args: string[]) =>
      execFileSync("git", ["-C", root, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    const head = run(["rev-parse", "HEAD"]).trim();
    if (!/^[0-9a-f]{40}$/.test(head)) return undefined;
    const dirty = run(["status", "--porcelain", "--untracked-files=no"]).trim() !== "";
    return dirty ? `${head}-dirty` : head;
  } catch {
    return undefined;
  }
}

/** package.json's version at `root`: the operator's, the chart's appVersion and the images' tag. */
export function packageVersion(root = appRoot()): string {
  return (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
}

/** Version and commit of the operator installed at `root`: build-info.json first, else package.json and git. */
export function buildInfo(root = appRoot()): BuildInfo {
  const recorded = path.join(root, BUILD_INFO_FILE);
  if (existsSync(recorded)) return JSON.parse(readFileSync(recorded, "utf8")) as BuildInfo;
  return { version: packageVersion(root), commit: gitCommit(root) ?? "unknown" };
}
