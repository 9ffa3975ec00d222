// In CI no test is skipped: a test that skips itself there (a missing tool, an `it.skipIf` whose
// condition held, a `.skip` or `.todo` left in) proves nothing while the run reads green. This
// reporter names every skipped test at the end of the run and, with CI set (CI=true, as CI runs
// `npm test`), fails the run. Outside CI it only names them: a developer may run a subset.
import type { Reporter, TestModule } from "vitest/node";

export interface Skipped {
  project: string;
  file: string;
  name: string;
  /** skip, todo, or run (a test that skipped itself while running: ctx.skip()). */
  mode: string;
}

/** Whether `env` says this is CI (CI set to anything but "", "0" or "false"). */
export function isCi(env: Record<string, string | undefined>): boolean {
  const v = env.CI?.trim().toLowerCase();
  return !!v && v !== "0" && v !== "false";
}

/** The skipped tests of a run. */
export function skippedTests(modules: ReadonlyArray<TestModule>): Skipped[] {
  const out: Skipped[] = [];
  for (const m of modules) {
    for (const t of m.children.allTests()) {
      if (t.result().state !== "skipped") continue;
      out.push({ project: t.project.name, file: m.relativeModuleId, name: t.fullName, mode: t.options.mode });
    }
  }
  return out;
}

export function describeSkipped(skipped: readonly Skipped[], ci: boolean): string {
  const lines = skipped.map(
    (s) => `  ${s.project ? `|${s.project}| ` : ""}${s.file} > ${s.name} (${s.mode})`,
  );
  return ci
    ? `${skipped.length} test(s) skipped in CI, where every test must run (install what they need, or remove the skip):\n${lines.join("\n")}\n`
    : `${skipped.length} test(s) skipped (in CI this fails the run):\n${lines.join("\n")}\n`;
}

export default class NoSkipsInCi implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped = skippedTests(modules);
    if (!skipped.length) return;
    const ci = isCi(process.env);
    process.stderr.write(`\n${describeSkipped(skipped, ci)}`);
    if (ci) process.exitCode = 1;
  }
}
