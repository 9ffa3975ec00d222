// Rounds on a devnet. The AdjustableRoundsManager counts rounds from a block number it is told
// (setBlockNum / mineBlocks), not from the chain's blocks, so rounds move only when we say so.
// Its blockHash() requires blockNum >= 256 and TicketBroker needs a non-zero hash per round.
import { type BaseContract, keccak256, toUtf8Bytes } from "ethers";
import { read, send } from "./transact.ts";

const MIN_BLOCK_NUM = 256n;
const DEVNET_BLOCK_HASH = keccak256(toUtf8Bytes("livepeer-operator devnet round"));

/** Moves to the first round whose start block is at least 256, and initializes it. */
export async function startFirstRound(rounds: BaseContract, roundLength: number): Promise<bigint> {
  const length = BigInt(roundLength);
  const firstRound = (MIN_BLOCK_NUM + length - 1n) / length;
  await send(rounds, "setBlockHash", [DEVNET_BLOCK_HASH]);
  await send(rounds, "setBlockNum", [firstRound * length]);
  await send(rounds, "initializeRound");
  return read<bigint>(rounds, "currentRound");
}

/** Moves to the next round and initializes it (how newly registered transcoders become active). */
export async function advanceRound(rounds: BaseContract): Promise<bigint> {
  const length = await read<bigint>(rounds, "roundLength");
  await send(rounds, "mineBlocks", [length]);
  await send(rounds, "initializeRound");
  return read<bigint>(rounds, "currentRound");
}

/** Initializes the current round when nobody has yet; returns the current round. */
export async function ensureRoundInitialized(rounds: BaseContract): Promise<bigint> {
  if (!(await read<boolean>(rounds, "currentRoundInitialized"))) await send(rounds, "initializeRound");
  return read<bigint>(rounds, "currentRound");
}
