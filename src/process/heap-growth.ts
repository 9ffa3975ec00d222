// How far V8 lets the old generation grow past the live heap before its next full GC. V8 picks
// the factor itself from GC and mutator speed: for the controller at 5,000 Orchestrators about
// 1.45 (70 MB live after a full GC, 100-130 MB committed before the next), so most of its peak RSS
// above the live heap was garbage waiting for a GC V8 had no reason to run yet. Growing by 20 %
// instead kept the peak at 194 MB against 209-218 with V8's factor, for the same CPU per reconcile
// (bench/orchestrators.ts at 5,000; docs/sizing.md). Node refuses the flag in NODE_OPTIONS, so the
// process sets it on itself at start; V8 reads it at every full GC.

import { setFlagsFromString } from "node:v8";

export const DEFAULT_HEAP_GROWING_PERCENT = 20;

/** `--heap-growing-percent`'s value, checked: an integer from 0 (V8's own factor) to 400. */
export function parseHeapGrowingPercent(value: string | undefined): number {
  if (value === undefined) return DEFAULT_HEAP_GROWING_PERCENT;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 400) {
    throw new Error(
      `--heap-growing-percent must be a whole number from 0 (V8's own factor) to 400, got ${value}`,
    );
  }
  return n;
}

/**
 * Sets V8's heap growth to `percent` (0 leaves V8's factor), unless node's own command line set
 * it, which wins. Returns what is in force, for the start-up log line.
 */
export function applyHeapGrowth(
  percent: number,
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = setFlagsFromString,
): string {
  const given = execArgv.find((a) => /^--heap[-_]growing[-_]percent(=|$)/.test(a));
  if (given) return `${given} (node's command line)`;
  if (percent === 0) return "V8's own factor";
  setFlags(`--heap-growing-percent=${percent}`);
  return `--heap-growing-percent=${percent}`;
}
