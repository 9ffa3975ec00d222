import { describe, expect, it } from "vitest";
import { mmdebstrapCommand, recipe, recipeKey } from "./recipe.ts";

describe("the Python SDK environment's recipe", () => {
  it("its key changes with what is installed, and only then", () => {
    const base = recipe("livepeer-gateway==1.0.0\n", "x64");
    expect(recipeKey(base)).toBe(recipeKey(recipe("livepeer-gateway==1.0.0\n", "x64")));
    expect(recipeKey(base)).toMatch(/^sdk-[0-9a-f]{16}$/);
    expect(recipeKey(recipe("livepeer-gateway==1.0.1\n", "x64"))).not.toBe(recipeKey(base));
    expect(recipeKey(recipe("livepeer-gateway==1.0.0\n", "arm64"))).not.toBe(recipeKey(base));
    expect(recipeKey({ ...base, suite: "forky" })).not.toBe(recipeKey(base));
  });

  it("the shipped pins install livepeer-gateway 1.0.0 and pin every other line exactly", () => {
    const lines = recipe()
      .requirements.split("\n")
      .filter((l) => l.trim() && !l.startsWith("#"));
    expect(lines).toContain("livepeer-gateway==1.0.0");
    expect(lines.filter((l) => !/^[A-Za-z0-9_.-]+==[0-9][A-Za-z0-9.]*$/.test(l))).toEqual([]);
  });

  it("mmdebstrap makes a minbase trixie root with python3, python3-venv and ca-certificates", () => {
    const argv = mmdebstrapCommand("/c/root", "http://deb.debian.org/debian");
    expect(argv[0]).toBe("mmdebstrap");
    expect(argv).toContain("--variant=minbase");
    expect(
      argv
        .find((a) => a.startsWith("--include="))
        ?.split("=")[1]
        ?.split(",")
        .sort(),
    ).toEqual(["ca-certificates", "python3", "python3-venv"]);
    expect(argv.slice(-3)).toEqual(["trixie", "/c/root", "http://deb.debian.org/debian"]);
  });
});
