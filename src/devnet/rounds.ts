// Rounds on a devnet. The AdjustableRoundsManager counts rounds from a block number it is told
// (setBlockNum / mineBlocks), not from the chain's blocks, so rounds move only when we say so:
// the round ticker (ticker.ts) moves it one block per tick, `devnet round` jumps.
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

/**
 * Like ensureRoundInitialized, for when someone else may initialize the same round at the same
 * time (the ticker and a `devnet` command): a revert because it already happened is fine.
 */
export async function initializeRoundIfNeeded(rounds: BaseContract): Promise<bigint> {
  if (!(await read<boolean>(rounds, "currentRoundInitialized"))) {
    try {
      await send(rounds, "initializeRound");
    } catch (err) {
      if (!(await read<boolean>(rounds, "currentRoundInitialized"))) throw err;
    }
  }
  return read<bigint>(rounds, "currentRound");
}

/**
 * Runs `action` in an initialized round: a round ticker can start a new round between the
 * initialization and the transaction, which then reverts with "current round is not initialized";
 * the round is initialized again and the action retried (a few times at most).
 */
export async function inInitializedRound<T>(
  rounds: BaseContract,
  action: (round: bigint) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const round = await initializeRoundIfNeeded(rounds);
    try {
      return await action(round);
    } catch (err) {
      if (attempt >= 3 || !/current round is not initialized/.test(String((err as Error).message))) throw err;
    }
  }
}

/** Jumps to the start of the round `count` rounds ahead and initializes it; returns that round. */
export async function advanceToRoundStart(rounds: BaseContract, count = 1n): Promise<bigint> {
  if (count < 1n) throw new Error(`rounds to advance: ${count} is not 1 or more`);
  const [length, start, blockNum] = await Promise.all([
    read<bigint>(rounds, "roundLength"),
    read<bigint>(rounds, "currentRoundStartBlock"),
    read<bigint>(rounds, "blockNum"),
  ]);
  const target = start + count * length;
  if (target > blockNum) await send(rounds, "mineBlocks", [target - blockNum]);
  return initializeRoundIfNeeded(rounds);
}
