import { describe, expect, it } from "vitest";
import { inCi, parsePorcelain, treeProblem } from "./tree-check.ts";

describe("parsePorcelain", () => {
  it("reads staged and unstaged changes, and skips a rename's source", () => {
    expect(parsePorcelain(" M package-lock.json\0M  src/a.ts\0R  new.ts\0old.ts\0MM b.ts\0")).toEqual([
      { path: "package-lock.json", staged: false, unstaged: true },
      { path: "src/a.ts", staged: true, unstaged: false },
      { path: "new.ts", staged: true, unstaged: false },
      { path: "b.ts", staged: true, unstaged: true },
    ]);
    expect(parsePorcelain("")).toEqual([]);
  });
});

describe("treeProblem", () => {
  const lock = { path: "package-lock.json", staged: false, unstaged: true };
  const manifest = { path: "package.json", staged: false, unstaged: true };
  const source = { path: "src/a.ts", staged: false, unstaged: true };

  it("fails in CI on any changed tracked file, naming each", () => {
    const problem = treeProblem([source, lock], true);
    expect(problem).toMatch(/tracked files changed during the CI run/);
    expect(problem).toMatch(/ {2}src\/a\.ts\n {2}package-lock\.json\n/);
    expect(treeProblem([], true)).toBeUndefined();
  });

  it("on a developer's machine fails only on a lockfile the install rewrote", () => {
    expect(treeProblem([lock], false)).toMatch(/package-lock.json changed although package.json did not/);
    expect(treeProblem([lock, source], false)).toMatch(/git checkout package-lock.json/);
    expect(treeProblem([source], false)).toBeUndefined();
    expect(treeProblem([lock, manifest], false)).toBeUndefined();
    expect(treeProblem([{ ...lock, staged: true, unstaged: false }], false)).toBeUndefined();
  });
});

describe("inCi", () => {
  it.each([
    [{ CI: "true" }, true],
    [{ CI: "1" }, true],
    [{ CI: "false" }, false],
    [{ CI: "" }, false],
    [{}, false],
  ])("%o: %s", (env, expected) => {
    expect(inCi(env)).toBe(expected);
  });
});
