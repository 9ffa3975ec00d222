// `npm run check:tree` (part of `npm run check`, so of `npm test`): fails when installing changed
// tracked files (see tree-check.ts for what counts on a developer's machine and in CI).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { inCi, parsePorcelain, treeProblem } from "./tree-check.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

function main(): number {
  const ci = inCi(process.env);
  const git = spawnSync("git", ["status", "--porcelain=v1", "-z", "--untracked-files=no"], {
    cwd: root,
    encoding: "utf8",
  });
  if (git.error || git.status !== 0) {
    // Not a git checkout (a package tarball, an image build): nothing is tracked to compare.
    const why = git.error?.message ?? git.stderr.trim();
    if (ci) {
      console.error(`check:tree: cannot read the tree's status in CI (${why}): run in a git checkout`);
      return 1;
    }
    console.log(`check:tree: skipped, not a git checkout (${why})`);
    return 0;
  }
  const problem = treeProblem(parsePorcelain(git.stdout), ci);
  if (problem) {
    console.error(`check:tree: ${problem}`);
    return 1;
  }
  return 0;
}

process.exitCode = main();
