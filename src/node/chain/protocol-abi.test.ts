// The hand-made encoding must be the deployed protocol's: selectors and Controller ids from
// keccak256, functions that exist in the @livepeer/sdk artifacts with the results declared here,
// and the same bytes and values as ethers' coder with the full artifact ABI.
import { AbiCoder, type Fragment, type FunctionFragment, Interface, id, type ParamType } from "ethers";
import { describe, expect, it } from "vitest";
import { loadArtifact } from "../../devnet/artifacts.ts";
import {
  AbiDecodeError,
  BONDING_MANAGER,
  CONTROLLER,
  CONTROLLER_IDS,
  decodeCall,
  encodeCall,
  type ProtocolFunction,
  ROUNDS_MANAGER,
  SERVICE_REGISTRY,
  TICKET_BROKER,
} from "./protocol-abi.ts";

const CONTRACTS = [
  ["Controller", CONTROLLER],
  ["ServiceRegistry", SERVICE_REGISTRY],
  ["BondingManager", BONDING_MANAGER],
  ["RoundsManager", ROUNDS_MANAGER],
  ["TicketBroker", TICKET_BROKER],
] as const;

const CASES: [string, string, ProtocolFunction, FunctionFragment][] = CONTRACTS.flatMap(
  ([contract, table]) => {
    const full = new Interface(loadArtifact(contract).abi as Fragment[]);
    return Object.entries(table).map(([name, f]): [string, string, ProtocolFunction, FunctionFragment] => {
      const fragment = full.getFunction(name);
      if (!fragment) throw new Error(`${contract} has no ${name}`);
      return [contract, name, f, fragment];
    });
  },
);

/** The result's values in order, struct fields flattened. */
function leaves(params: readonly ParamType[]): ParamType[] {
  return params.flatMap((p) => (p.baseType === "tuple" ? leaves(p.components!) : [p]));
}

function sampleFor(p: ParamType, i: number): unknown {
  if (p.baseType === "tuple") return p.components!.map((c, j) => sampleFor(c, i * 10 + j));
  if (p.type === "address") return `0x${"00".repeat(19)}${(0xa0 + i).toString(16)}`;
  if (p.type === "bool") return i % 2 === 0;
  if (p.type === "string") return "https://orch.example.com:8935 ✓";
  return BigInt(1000 + i) * 10n ** 18n;
}

describe.each(CASES)("%s.%s", (_contract, _name, f, theirs) => {
  it("has the selector of its signature, in the artifact, as a view", () => {
    expect(id(f.signature).slice(0, 10)).toBe(f.selector);
    expect(theirs.selector).toBe(f.selector);
    expect(theirs.stateMutability).toBe("view");
  });

  it("declares the artifact's result (a struct: its first fields, in order, all uint256)", () => {
    if (typeof f.output === "string") {
      expect(theirs.outputs.map((o) => o.type)).toEqual([f.output]);
      return;
    }
    const fields = leaves(theirs.outputs).slice(0, f.output.length);
    expect(fields.map((p) => p.name)).toEqual(f.output);
    expect(fields.every((p) => p.type === "uint256")).toBe(true);
  });

  it("encodes the call as ethers does", () => {
    const args = theirs.inputs.map((i) =>
      i.type === "address" ? "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e" : CONTROLLER_IDS.TicketBroker,
    );
    expect(encodeCall(f, args)).toBe(new Interface([theirs]).encodeFunctionData(theirs, args));
  });

  it("decodes what the full ABI encodes", () => {
    const values = theirs.outputs.map((o, i) => sampleFor(o, i));
    const data = AbiCoder.defaultAbiCoder().encode(theirs.outputs, values);
    const got = decodeCall<unknown>(f, data);
    if (typeof f.output === "string") {
      // Addresses come back in lower case (compared as such); everything else as encoded.
      expect(got).toBe(f.output === "address" ? (values[0] as string).toLowerCase() : values[0]);
      return;
    }
    const flat = (values as unknown[]).flat();
    expect(got).toEqual(Object.fromEntries(f.output.map((name, i) => [name, flat[i]])));
  });
});

describe("encodeCall and decodeCall refuse what they cannot read", () => {
  it.each([
    ["no data (no contract there)", "0x"],
    ["half a word", `0x${"00".repeat(16)}`],
    ["not hex", "0xzz"],
  ])("a uint256 result of %s", (_why, data) => {
    expect(() => decodeCall(BONDING_MANAGER.transcoderTotalStake, data)).toThrow(AbiDecodeError);
  });

  it("a string whose length runs past the data", () => {
    const data = `0x${32n.toString(16).padStart(64, "0")}${100n.toString(16).padStart(64, "0")}${"41".repeat(10).padEnd(64, "0")}`;
    expect(() => decodeCall(SERVICE_REGISTRY.getServiceURI, data)).toThrow(/runs past the data/);
  });

  it("an argument that is not an address or a bytes32", () => {
    expect(() => encodeCall(BONDING_MANAGER.isActiveTranscoder, ["0x1234"])).toThrow(
      /not an address or a bytes32/,
    );
  });
});

describe("CONTROLLER_IDS", () => {
  it.each(Object.entries(CONTROLLER_IDS))("%s is keccak256 of its name", (name, hash) => {
    expect(id(name)).toBe(hash);
  });
});
