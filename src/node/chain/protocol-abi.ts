// The few protocol functions the chain checks call, as human-readable fragments: small enough
// for the controller to hold (never the full artifacts), and checked against the @livepeer/sdk
// artifacts in protocol-abi.test.ts. Struct results are declared up to the last field used; the
// rest of a static tuple is ignored when decoding, so newer contract versions still decode.
import { Interface } from "ethers/abi";
import { keccak256 } from "ethers/crypto";
import { toUtf8Bytes } from "ethers/utils";

export const CONTROLLER_ABI = new Interface(["function getContract(bytes32 id) view returns (address)"]);

export const SERVICE_REGISTRY_ABI = new Interface([
  "function getServiceURI(address addr) view returns (string)",
]);

export const BONDING_MANAGER_ABI = new Interface([
  "function isActiveTranscoder(address transcoder) view returns (bool)",
  "function isRegisteredTranscoder(address transcoder) view returns (bool)",
  "function transcoderTotalStake(address transcoder) view returns (uint256)",
  "function getTranscoder(address transcoder) view returns (uint256 lastRewardRound, uint256 rewardCut, uint256 feeShare, uint256 lastActiveStakeUpdateRound, uint256 activationRound, uint256 deactivationRound)",
  "function getTranscoderPoolSize() view returns (uint256)",
  "function getTranscoderPoolMaxSize() view returns (uint256)",
  "function getFirstTranscoderInPool() view returns (address)",
  "function getNextTranscoderInPool(address transcoder) view returns (address)",
]);

export const ROUNDS_MANAGER_ABI = new Interface([
  "function currentRound() view returns (uint256)",
  "function currentRoundInitialized() view returns (bool)",
  "function currentRoundStartBlock() view returns (uint256)",
  "function roundLength() view returns (uint256)",
  "function blockNum() view returns (uint256)",
]);

export const TICKET_BROKER_ABI = new Interface([
  "function getSenderInfo(address sender) view returns (tuple(uint256 deposit, uint256 withdrawRound) sender, tuple(uint256 fundsRemaining, uint256 claimedInCurrentRound) reserve)",
]);

/** The contracts the checks read, by their Controller name. */
export const PROTOCOL_CONTRACTS = [
  "BondingManager",
  "RoundsManager",
  "ServiceRegistry",
  "TicketBroker",
] as const;
export type ProtocolContract = (typeof PROTOCOL_CONTRACTS)[number];

/** How the Controller names a contract: keccak256 of its name. */
export function controllerId(name: string): string {
  return keccak256(toUtf8Bytes(name));
}

// Encoding and decoding through ethers' coders costs tens of microseconds a call; most calls here
// take only addresses and return one word. Those take a direct path (the same bytes, checked
// against ethers in protocol-abi.test.ts); the rest (strings, structs) go through ethers.
interface CompiledFunction {
  selector: string;
  addressArgs: boolean;
  word?: "uint256" | "bool" | "address";
}

const compiled = new WeakMap<Interface, Map<string, CompiledFunction>>();

function compile(abi: Interface, fn: string): CompiledFunction {
  let byName = compiled.get(abi);
  if (!byName) compiled.set(abi, (byName = new Map()));
  let c = byName.get(fn);
  if (!c) {
    const f = abi.getFunction(fn);
    if (!f) throw new Error(`no function ${fn} in the ABI`);
    const out = f.outputs.length === 1 ? f.outputs[0]!.type : undefined;
    c = {
      selector: f.selector,
      addressArgs: f.inputs.every((i) => i.type === "address"),
      word: out === "uint256" || out === "bool" || out === "address" ? out : undefined,
    };
    byName.set(fn, c);
  }
  return c;
}

const ADDRESS_ARG = /^0x[0-9a-fA-F]{40}$/;

export function encodeCall(abi: Interface, fn: string, args: readonly unknown[] = []): string {
  const c = compile(abi, fn);
  if (c.addressArgs && args.every((a) => typeof a === "string" && ADDRESS_ARG.test(a))) {
    return c.selector + args.map((a) => (a as string).slice(2).toLowerCase().padStart(64, "0")).join("");
  }
  return abi.encodeFunctionData(fn, args as unknown[]);
}

/** One result value for single-output functions, else ethers' Result (fields by name). */
export function decodeCall<T>(abi: Interface, fn: string, data: string): T {
  const c = compile(abi, fn);
  if (c.word && /^0x[0-9a-fA-F]{64}/.test(data)) {
    const word = data.slice(2, 66);
    if (c.word === "uint256") return BigInt(`0x${word}`) as T;
    if (c.word === "bool") return (BigInt(`0x${word}`) !== 0n) as T;
    return `0x${word.slice(24)}` as T;
  }
  const decoded = abi.decodeFunctionResult(fn, data);
  return (decoded.length === 1 ? decoded[0] : decoded) as T;
}
