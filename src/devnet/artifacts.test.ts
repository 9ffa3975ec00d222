import { describe, expect, it } from "vitest";
import { type Artifact, linkBytecode, loadArtifact } from "./artifacts.ts";

const LIB = "0x1111111111111111111111111111111111111111";

describe("linkBytecode", () => {
  it("puts the library address at every placeholder hardhat's linkReferences name", () => {
    const placeholder = "__$0123456789abcdef0123456789abcdef01$__";
    const artifact: Artifact = {
      contractName: "Uses",
      sourceName: "contracts/Uses.sol",
      abi: [],
      bytecode: `0x6000${placeholder}6001${placeholder}`,
      linkReferences: {
        "contracts/Lib.sol": {
          Lib: [
            { start: 2, length: 20 },
            { start: 24, length: 20 },
          ],
        },
      },
    };
    expect(linkBytecode(artifact, { Lib: LIB })).toBe(`0x6000${LIB.slice(2)}6001${LIB.slice(2)}`);
  });

  it("refuses to deploy with a library missing", () => {
    const artifact = loadArtifact("BondingManager");
    expect(() => linkBytecode(artifact, {})).toThrow(/needs library SortedDoublyLL/);
  });

  it("links the npm BondingManager with SortedDoublyLL, leaving no placeholder", () => {
    const linked = linkBytecode(loadArtifact("BondingManager"), { SortedDoublyLL: LIB });
    expect(linked).not.toContain("__");
    expect(linked.length).toBe(loadArtifact("BondingManager").bytecode.length);
    expect(linked).toContain(LIB.slice(2));
  });
});
