import { describe, expect, it } from "vitest";
import { commandIn, SCHEMATHESIS_VERSION, venvDir } from "./schemathesis.ts";

describe("schemathesis environment", () => {
  it("is kept per schemathesis and Python version under the cache", () => {
    expect(venvDir("4.32.5", "3.11", "/c")).toBe("/c/python-tools/schemathesis-4.32.5-py3.11");
    expect(SCHEMATHESIS_VERSION).toMatch(/^4\.\d+\.\d+$/);
  });

  it("runs through the environment's python, not a console script naming where it was built", () => {
    const [python, flag, code] = commandIn("/c/env");
    expect(python).toBe("/c/env/bin/python3");
    expect(flag).toBe("-c");
    expect(code).toMatch(/from schemathesis\.cli import schemathesis/);
  });
});
