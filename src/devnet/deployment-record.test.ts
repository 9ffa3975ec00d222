import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type DeploymentRecord, readDeployments, writeDeployments } from "./deployment-record.ts";

const tmp = mkdtempSync(path.join(tmpdir(), "devnet-deployments-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const record: DeploymentRecord = {
  chainId: 1337,
  contracts: {
    Controller: { address: "0x04721B0FBe004467c8dD704E232A51F426A0F8EF", abi: [] },
    BondingManager: {
      address: "0x4172E6B72a7d7c8148A26e5565cEF951CE26010e",
      abi: [{ type: "function", name: "bond" }],
    },
  },
  registered: {},
};

describe("deployments/devnet", () => {
  it("holds one {address, abi} file per contract and the chain id", () => {
    const dir = path.join(tmp, "a");
    writeDeployments(dir, record);
    expect(readdirSync(dir).sort()).toEqual([".chainId", "BondingManager.json", "Controller.json"]);
    expect(JSON.parse(readFileSync(path.join(dir, "BondingManager.json"), "utf8"))).toEqual(
      record.contracts.BondingManager,
    );
    expect(readDeployments(dir)).toEqual({ chainId: 1337, contracts: record.contracts });
  });

  it("drops files of contracts no longer deployed", () => {
    const dir = path.join(tmp, "b");
    writeDeployments(dir, record);
    writeFileSync(path.join(dir, "Stale.json"), JSON.stringify({ address: "0x1", abi: [] }));
    writeDeployments(dir, record);
    expect(readdirSync(dir)).not.toContain("Stale.json");
  });

  it("reads nothing from a missing folder", () => {
    expect(readDeployments(path.join(tmp, "missing"))).toBeUndefined();
  });
});
