// How much of the current round is left, in RoundsManager blocks and, when the block time is
// known, in time: what an operator needs to know to call reward before it is too late.
import type { RoundFacts } from "../facts.ts";

export interface RoundTimeLeft {
  blocks: bigint;
  /** Undefined when the seconds per block are unknown (a devnet without a ticker setting). */
  seconds?: number;
}

export function roundTimeLeft(round: RoundFacts, secondsPerBlock?: number): RoundTimeLeft {
  const end = round.startBlock + round.length;
  const blocks = end > round.blockNum ? end - round.blockNum : 0n;
  return secondsPerBlock === undefined ? { blocks } : { blocks, seconds: Number(blocks) * secondsPerBlock };
}

const UNITS: readonly [number, string][] = [
  [86_400, "d"],
  [3_600, "h"],
  [60, "min"],
  [1, "s"],
];

/** "2 h 5 min", "45 s", "3 d": the largest unit and the next one when it is not 0. */
export function durationText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const i = UNITS.findIndex(([size]) => s >= size);
  if (i < 0) return "0 s";
  const [size, name] = UNITS[i]!;
  const first = `${Math.floor(s / size)} ${name}`;
  const next = UNITS[i + 1];
  if (!next) return first;
  const second = Math.floor((s % size) / next[0]);
  return second > 0 ? `${first} ${second} ${next[1]}` : first;
}

export function timeLeftText(left: RoundTimeLeft): string {
  const blocks = `${left.blocks} block${left.blocks === 1n ? "" : "s"}`;
  return left.seconds === undefined ? blocks : `${blocks} (about ${durationText(left.seconds)})`;
}
