import { describe, expect, it } from "vitest";
import { BUILT_IN_CONTROLLERS } from "../config/networks.ts";
import { chainProfile } from "./networks.ts";

describe("chainProfile", () => {
  it.each([
    ["arbitrum-one-mainnet", 42161, BUILT_IN_CONTROLLERS["arbitrum-one-mainnet"], 12],
    ["mainnet", 1, BUILT_IN_CONTROLLERS.mainnet, 12],
    ["devnet", undefined, undefined, undefined],
    ["my-chain", undefined, undefined, undefined],
  ])("%s: chain %s, Controller %s, %s s per round block", (network, chainId, controller, seconds) => {
    expect(chainProfile(network)).toEqual({ network, chainId, controller, secondsPerRoundBlock: seconds });
  });

  it("a devnet's deployment and -ethController override the built-ins", () => {
    const controller = `0x${"ab".repeat(20)}`;
    expect(chainProfile("devnet", { chainId: 1337, controller, secondsPerRoundBlock: 1 })).toEqual({
      network: "devnet",
      chainId: 1337,
      controller,
      secondsPerRoundBlock: 1,
    });
    expect(chainProfile("arbitrum-one-mainnet", { controller }).controller).toBe(controller);
  });
});
