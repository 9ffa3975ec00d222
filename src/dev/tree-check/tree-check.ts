// Did installing change a tracked file? `npm install` on a fresh clone must leave the tree as it
// was (a lockfile written by another npm, a generated file, a postinstall step...). In CI (CI set)
// any changed tracked file fails the check, naming it. On a developer's machine a dirty tree is
// normal, so only the install's own fingerprint fails it: package-lock.json changed in the work
// tree while package.json is not (someone adding a dependency changes both, or stages the lock).

export interface Change {
  path: string;
  /** Changed in the index (staged) / in the work tree. */
  staged: boolean;
  unstaged: boolean;
}

/** `git status --porcelain=v1 -z --untracked-files=no` -> the changed tracked files. */
export function parsePorcelain(z: string): Change[] {
  const fields = z.split("\0");
  const out: Change[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    const x = f[0]!;
    const y = f[1]!;
    out.push({ path: f.slice(3), staged: x !== " " && x !== "?", unstaged: y !== " " && y !== "?" });
    // A rename or copy is followed by its source path.
    if (x === "R" || x === "C") i++;
  }
  return out;
}

/** Whether CI is set the way CI services set it (GitHub: CI=true). */
export function inCi(env: NodeJS.ProcessEnv): boolean {
  const v = env.CI?.trim().toLowerCase();
  return v !== undefined && v !== "" && v !== "false" && v !== "0";
}

/** Why the tree fails the check, or undefined when it passes. */
export function treeProblem(changes: readonly Change[], ci: boolean): string | undefined {
  if (ci && changes.length) {
    return `tracked files changed during the CI run (by npm install or a step before this check):\n${changes
      .map((c) => `  ${c.path}`)
      .join(
        "\n",
      )}\nrun the install on a fresh clone, see what it rewrites (git diff), and commit the result or fix what writes it`;
  }
  const lock = changes.find((c) => c.path === "package-lock.json");
  const manifest = changes.find((c) => c.path === "package.json");
  if (lock?.unstaged && !manifest) {
    return "package-lock.json changed although package.json did not (npm install rewrote it): if you meant it (npm update ...), stage it with `git add package-lock.json`; otherwise restore it with `git checkout package-lock.json`, and if a fresh npm install keeps rewriting it, commit what it writes";
  }
  return undefined;
}
