// The protocol's Minter reads `L2LPTDataCache.l1CirculatingSupply()` when a round starts; on a
// devnet upstream registers a dummy that returns 0. The npm artifacts do not ship that dummy, so
// this is the same behaviour in 16 bytes of hand-assembled EVM code: every call returns 32 zero
// bytes, i.e. uint256 0.
import type { InterfaceAbi } from "ethers";

// Runtime: PUSH1 0x20, PUSH1 0x00, RETURN  -> return memory[0, 32), which is all zeros.
const RUNTIME = "60206000f3";
// Init: PUSH1 len, DUP1, PUSH1 offset(=11), PUSH1 0, CODECOPY, PUSH1 0, RETURN, then the runtime.
const INIT = "600580600b6000396000f3";

export const DATA_CACHE_STUB_BYTECODE = `0x${INIT}${RUNTIME}`;
export const DATA_CACHE_STUB_RUNTIME = `0x${RUNTIME}`;

export const DATA_CACHE_STUB_ABI: InterfaceAbi = [
  {
    type: "function",
    name: "l1CirculatingSupply",
    inputs: [],
    outputs: [{ name: "", type: "uint256", internalType: "uint256" }],
    stateMutability: "view",
  },
];
