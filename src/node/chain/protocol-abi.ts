// The few protocol functions the chain checks call, encoded and decoded here by hand: every
// argument is an address or a bytes32, every result one word, a string or a static struct of
// words. Importing ethers' ABI coder would load its fetch layer, and with it node:http as an ES
// module (Node's bundled undici, 15 MB of RSS) into the controller. Selectors, Controller ids and
// every decoding are checked against ethers and the @livepeer/sdk artifacts in
// protocol-abi.test.ts. A struct is read up to its last field used; later fields are ignored,
// so newer contract versions still decode.

/** A result: one word, a string, or a struct of uint256 words named in order. */
export type Output = "uint256" | "bool" | "address" | "string" | readonly string[];

export interface ProtocolFunction {
  signature: string;
  /** First 4 bytes of keccak256(signature). */
  selector: string;
  output: Output;
}

function fn(signature: string, selector: string, output: Output): ProtocolFunction {
  return { signature, selector, output };
}

export const CONTROLLER = {
  getContract: fn("getContract(bytes32)", "0xe16c7d98", "address"),
} as const;

export const SERVICE_REGISTRY = {
  getServiceURI: fn("getServiceURI(address)", "0x214c2a4b", "string"),
} as const;

export const BONDING_MANAGER = {
  isActiveTranscoder: fn("isActiveTranscoder(address)", "0x08802374", "bool"),
  isRegisteredTranscoder: fn("isRegisteredTranscoder(address)", "0x68ba170c", "bool"),
  transcoderTotalStake: fn("transcoderTotalStake(address)", "0x9ef9df94", "uint256"),
  getTranscoder: fn("getTranscoder(address)", "0x5dce9948", [
    "lastRewardRound",
    "rewardCut",
    "feeShare",
    "lastActiveStakeUpdateRound",
    "activationRound",
    "deactivationRound",
  ]),
  getTranscoderPoolSize: fn("getTranscoderPoolSize()", "0x2a4e0d55", "uint256"),
  getTranscoderPoolMaxSize: fn("getTranscoderPoolMaxSize()", "0x5a2a75a9", "uint256"),
  getFirstTranscoderInPool: fn("getFirstTranscoderInPool()", "0x88a6c749", "address"),
  getNextTranscoderInPool: fn("getNextTranscoderInPool(address)", "0x235c9603", "address"),
} as const;

export const ROUNDS_MANAGER = {
  currentRound: fn("currentRound()", "0x8a19c8bc", "uint256"),
  currentRoundInitialized: fn("currentRoundInitialized()", "0x219bc76c", "bool"),
  currentRoundStartBlock: fn("currentRoundStartBlock()", "0x8fa148f2", "uint256"),
  roundLength: fn("roundLength()", "0x8b649b94", "uint256"),
  blockNum: fn("blockNum()", "0x8ae63d6d", "uint256"),
} as const;

export const TICKET_BROKER = {
  // (Sender {deposit, withdrawRound}, ReserveInfo {fundsRemaining, claimedInCurrentRound}): 4 words.
  getSenderInfo: fn("getSenderInfo(address)", "0xe1a589da", [
    "deposit",
    "withdrawRound",
    "fundsRemaining",
    "claimedInCurrentRound",
  ]),
} as const;

/** The contracts the checks read, by their Controller name. */
export const PROTOCOL_CONTRACTS = [
  "BondingManager",
  "RoundsManager",
  "ServiceRegistry",
  "TicketBroker",
] as const;
export type ProtocolContract = (typeof PROTOCOL_CONTRACTS)[number];

/** How the Controller names them: keccak256(name). */
export const CONTROLLER_IDS: Readonly<Record<ProtocolContract, string>> = {
  BondingManager: "0x2517d59a36a86548e38734e8ab416f42afff4bca78706a66ad65750dae7f9e37",
  RoundsManager: "0xe8438ea868df48e3fc21f2f087b993c9b1837dc0f6135064161ce7d7a1701fe8",
  ServiceRegistry: "0x79c5d2a4a07754f4bacb0ffba18ac516030ee589ebc89db8627680c4d4cdb230",
  TicketBroker: "0xbd1aa3e8d2464256d7fd3dcf645c16418d5d8c51d971f1ad7d57e7b1b5eee239",
};

export const ZERO_ADDRESS = `0x${"0".repeat(40)}`;
const WORD_ARG = /^0x([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/;

/** Call data: the selector, then each argument (an address or a bytes32) as one word. */
export function encodeCall(f: ProtocolFunction, args: readonly string[] = []): string {
  return (
    f.selector +
    args
      .map((a) => {
        if (!WORD_ARG.test(a)) throw new TypeError(`${f.signature}: '${a}' is not an address or a bytes32`);
        return a.slice(2).toLowerCase().padStart(64, "0");
      })
      .join("")
  );
}

export class AbiDecodeError extends Error {
  constructor(f: ProtocolFunction, data: string, why: string) {
    super(`${f.signature} answered ${data.length > 80 ? `${data.slice(0, 80)}...` : data}: ${why}`);
    this.name = "AbiDecodeError";
  }
}

/** The result: bigint, boolean, a lower-case address, a string, or a record of bigints. */
export function decodeCall<T>(f: ProtocolFunction, data: string): T {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(data)) throw new AbiDecodeError(f, data, "not hex data");
  const hex = data.slice(2);
  const words = Math.floor(hex.length / 64);
  const word = (i: number): bigint => {
    if (i >= words) throw new AbiDecodeError(f, data, `no word ${i} (is there a contract at that address?)`);
    return BigInt(`0x${hex.slice(i * 64, i * 64 + 64)}`);
  };
  const out = f.output;
  if (out === "uint256") return word(0) as T;
  if (out === "bool") return (word(0) !== 0n) as T;
  if (out === "address") return `0x${(word(0) & ((1n << 160n) - 1n)).toString(16).padStart(40, "0")}` as T;
  if (out === "string") {
    const offset = Number(word(0)) / 32;
    const length = Number(word(offset));
    const start = (offset + 1) * 64;
    if (!Number.isInteger(offset) || start + length * 2 > hex.length) {
      throw new AbiDecodeError(f, data, "the string runs past the data");
    }
    return Buffer.from(hex.slice(start, start + length * 2), "hex").toString("utf8") as T;
  }
  return Object.fromEntries(out.map((name, i) => [name, word(i)])) as T;
}
