// The fragments the checks use must be the deployed protocol's: same selectors, and results that
// decode from what the full ABI encodes.
import { AbiCoder, type Fragment, Interface } from "ethers";
import { describe, expect, it } from "vitest";
import { loadArtifact } from "../devnet/artifacts.ts";
import {
  BONDING_MANAGER_ABI,
  CONTROLLER_ABI,
  decodeCall,
  encodeCall,
  ROUNDS_MANAGER_ABI,
  SERVICE_REGISTRY_ABI,
  TICKET_BROKER_ABI,
} from "./protocol-abi.ts";

const CASES = [
  ["Controller", CONTROLLER_ABI],
  ["ServiceRegistry", SERVICE_REGISTRY_ABI],
  ["BondingManager", BONDING_MANAGER_ABI],
  ["RoundsManager", ROUNDS_MANAGER_ABI],
  ["TicketBroker", TICKET_BROKER_ABI],
] as const;

describe.each(CASES)("%s fragments", (name, ours) => {
  const full = new Interface(loadArtifact(name).abi as Fragment[]);
  ours.forEachFunction((fn) => {
    it(`${fn.format("sighash")} exists in the artifact with the same selector`, () => {
      const theirs = full.getFunction(fn.name);
      expect(theirs?.selector).toBe(fn.selector);
      expect(theirs?.stateMutability).toBe("view");
    });
    it(`${fn.name}'s result decodes from the artifact's encoding`, () => {
      const theirs = full.getFunction(fn.name)!;
      const values = theirs.outputs.map((o) =>
        sample(
          o.baseType,
          o.components?.map((c) => c.baseType),
        ),
      );
      const encoded = AbiCoder.defaultAbiCoder().encode(theirs.outputs, values);
      const decoded = ours.decodeFunctionResult(fn.name, encoded);
      expect(decoded.length).toBe(fn.outputs.length);
      fn.outputs.forEach((o, i) => {
        expect(String(decoded[i])).toBe(String(values[i]));
        if (o.name) expect(String(decoded.getValue(o.name))).toBe(String(values[i]));
      });
    });
  });
});

function sample(type: string, components?: string[]): unknown {
  if (type === "tuple") return components!.map((t, i) => (sample(t) as bigint) + BigInt(i));
  if (type === "address") return "0x00000000000000000000000000000000000000A1";
  if (type === "bool") return true;
  if (type === "string") return "https://orch.example.com:8935";
  if (type.startsWith("uint")) return 7n;
  throw new Error(`no sample for ${type}`);
}

describe.each(CASES)("%s: the direct encoding and decoding give what ethers gives", (_name, ours) => {
  ours.forEachFunction((fn) => {
    it(fn.name, () => {
      const args = fn.inputs.map((i) =>
        i.type === "address" ? "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e" : `0x${"ab".repeat(32)}`,
      );
      expect(encodeCall(ours, fn.name, args)).toBe(ours.encodeFunctionData(fn, args));
      const values = fn.outputs.map((o) =>
        sample(
          o.baseType,
          o.components?.map((c) => c.baseType),
        ),
      );
      const encoded = AbiCoder.defaultAbiCoder().encode(fn.outputs, values);
      const ethers = ours.decodeFunctionResult(fn, encoded);
      const direct = decodeCall<unknown>(ours, fn.name, encoded);
      const expected = ethers.length === 1 ? ethers[0] : ethers;
      expect(String(direct).toLowerCase()).toBe(String(expected).toLowerCase());
    });
  });
  it("a result that is no word (a call to an address without code) is refused, not read as 0", () => {
    let first = "";
    ours.forEachFunction((fn, i) => {
      if (i === 0) first = fn.name;
    });
    expect(() => decodeCall(ours, first, "0x")).toThrow();
  });
});
