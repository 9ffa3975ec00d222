import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isCi } from "./no-skips.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");

/** A real vitest run of the fixture with this reporter: its exit status and what it printed. */
function runFixture(env: Record<string, string>): { status: number | null; output: string } {
  const { CI: _, ...rest } = process.env;
  const r = spawnSync(
    process.execPath,
    [
      path.join(root, "node_modules/vitest/vitest.mjs"),
      "run",
      "--config",
      path.join(here, "fixtures/vitest.fixture.config.ts"),
    ],
    { cwd: root, encoding: "utf8", timeout: 60_000, env: { ...rest, ...env } },
  );
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe("no test skipped in CI", () => {
  it.each([
    ["true", true],
    ["1", true],
    ["false", false],
    ["0", false],
    ["", false],
    [undefined, false],
  ])("CI=%s is CI: %s", (value, ci) => {
    expect(isCi({ CI: value })).toBe(ci);
  });

  it("a skipped test fails a CI run, named", () => {
    const r = runFixture({ CI: "true", FIXTURE_SKIP: "1" });
    expect(r.output).toMatch(
      /1 test\(s\) skipped in CI[^\n]*\n\s+skips\.fixture\.ts > a tool this machine lacks \(skip\)/,
    );
    expect(r.status, r.output).toBe(1);
  }, 60_000);

  it("outside CI the skip is named and the run passes", () => {
    const r = runFixture({ FIXTURE_SKIP: "1" });
    expect(r.output).toMatch(/1 test\(s\) skipped \(in CI this fails the run\)/);
    expect(r.status, r.output).toBe(0);
  }, 60_000);

  it("a CI run with nothing skipped passes and says nothing", () => {
    const r = runFixture({ CI: "true", FIXTURE_SKIP: "0" });
    expect(r.output).toMatch(/2 passed/);
    expect(r.output).not.toMatch(/skipped/);
    expect(r.status, r.output).toBe(0);
  }, 60_000);
});
