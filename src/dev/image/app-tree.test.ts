import { describe, expect, it } from "vitest";
import { keptInNodeModules, OMITTED_DEPENDENCIES, runtimePackageJson } from "./app-tree.ts";

describe("the app in the image", () => {
  const pkg = {
    name: "livepeer-operator",
    version: "0.1.0",
    type: "module",
    license: "MIT",
    scripts: { test: "vitest" },
    bin: { "livepeer-operator": "bin/livepeer-operator.js" },
    dependencies: { "@kubernetes/client-node": "^2", hardhat: "^2.29.1", "@livepeer/sdk": "^1", zod: "^4" },
    devDependencies: { vitest: "^5" },
  };

  it("package.json keeps what Node reads (ESM, version) and drops the devnet-only dependencies", () => {
    expect(runtimePackageJson(pkg)).toEqual({
      name: "livepeer-operator",
      version: "0.1.0",
      license: "MIT",
      type: "module",
      dependencies: { "@kubernetes/client-node": "^2", zod: "^4" },
    });
    expect(Object.keys(OMITTED_DEPENDENCIES).sort()).toEqual(["@livepeer/sdk", "hardhat"]);
  });

  it.each([
    ["zod/index.js", false, true],
    ["zod/package.json", false, true],
    ["ethers/lib.esm/index.js", false, true],
    ["undici/index.mjs", false, true],
    ["fastify/fastify.d.ts", false, false],
    ["fastify/types/instance.d.mts", false, false],
    ["ethers/src.ts/index.ts", false, false],
    ["jose/dist/index.js.map", false, false],
    ["zod/README.md", false, false],
    ["zod/LICENSE.md", false, true],
    ["undici/LICENSE", false, true],
    ["pino/NOTICE.md", false, true],
    [".bin", true, false],
    ["@types", true, false],
    ["@kubernetes", true, true],
  ])("node_modules/%s (dir %s) kept: %s", (p, isDir, kept) => {
    expect(keptInNodeModules(p, isDir)).toBe(kept);
  });
});
