import { Mnemonic } from "ethers";
import { describe, expect, it } from "vitest";
import { DEVNET_CHAIN_ID, DEVNET_MNEMONIC, renderHardhatConfig } from "./hardhat-config.ts";

function configOf(text: string): {
  networks: { hardhat: Record<string, unknown> };
  paths: Record<string, string>;
} {
  const module = { exports: {} as never };
  new Function("module", text)(module);
  return module.exports;
}

describe("renderHardhatConfig", () => {
  it("configures an automining chain with the devnet chain id and deterministic accounts", () => {
    const config = configOf(renderHardhatConfig());
    expect(config.networks.hardhat.chainId).toBe(DEVNET_CHAIN_ID);
    expect(config.networks.hardhat.mining).toEqual({ auto: true });
    expect(config.networks.hardhat.accounts).toMatchObject({ mnemonic: DEVNET_MNEMONIC });
  });

  it("points sources at an empty folder so nothing is compiled or downloaded", () => {
    expect(configOf(renderHardhatConfig()).paths.sources).toBe("./no-contracts");
  });

  it("uses a valid, fixed mnemonic", () => {
    expect(Mnemonic.isValidMnemonic(DEVNET_MNEMONIC)).toBe(true);
    expect(DEVNET_MNEMONIC.split(" ")).toHaveLength(12);
  });
});
