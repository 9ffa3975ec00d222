import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveDevnet } from "../controller/devnet/deployment-config-map.ts";
import { devnetPaths, writeDeployments } from "../devnet/index.ts";
import { devnetConfigMapJson } from "./devnet-configmap.ts";

const CONTROLLER = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function deployment(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "devnet-cm-"));
  dirs.push(dir);
  writeDeployments(devnetPaths(dir).deploymentsDir, {
    chainId: 1337,
    contracts: {
      Controller: {
        address: CONTROLLER,
        abi: [{ type: "function", name: "paused", inputs: [], outputs: [] }],
      },
      BondingManager: { address: "0x0000000000000000000000000000000000000001", abi: [] },
    },
    registered: {},
  });
  return dir;
}

describe("devnet configmap", () => {
  it("prints a ConfigMap the operator resolves to the chain URL and the Controller", () => {
    const cm = JSON.parse(
      devnetConfigMapJson({ dir: deployment(), name: "dn", namespace: "video", ethUrl: "http://chain:8545" }),
    );
    expect(cm.metadata).toMatchObject({ name: "dn", namespace: "video" });
    expect(Object.keys(cm.data).sort()).toEqual([
      ".chainId",
      "BondingManager.json",
      "Controller.json",
      "ethUrl",
    ]);
    expect(resolveDevnet({ devnet: "dn" }, "video", { found: true, data: cm.data })).toEqual({
      state: "resolved",
      configMap: "dn",
      ethUrl: "http://chain:8545",
      controller: CONTROLLER,
      // The chain checks compare the RPC's chain id with the deployment's.
      chainId: 1337,
    });
  });

  it.each([
    [
      "no deployment",
      () => mkdtempSync(path.join(tmpdir(), "devnet-cm-")),
      "http://c:1",
      /no deployment in .*devnet up/,
    ],
    ["no chain URL and no devnet state", deployment, undefined, /--eth-url is required/],
    ["a chain URL without a scheme", deployment, "chain:8545", /--eth-url "chain:8545" must start with http/],
  ] as const)("refuses with the fix: %s", (_n, dir, ethUrl, message) => {
    const d = dir();
    dirs.push(d);
    expect(() => devnetConfigMapJson({ dir: d, name: "dn", ...(ethUrl ? { ethUrl } : {}) })).toThrow(message);
  });
});
