// Reading loosely typed flag values (as callers build them) without throwing: validation wants to
// report a bad value, not crash on it.
import { canonicalName, FLAG_NAMES, type FlagName, type FlagValues } from "./flag-table.ts";

const TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);

/** The value given for a flag or one of its aliases, as text. */
export function flagText(values: FlagValues, name: FlagName): string | undefined {
  for (const candidate of namesFor(name)) {
    const v = values[candidate];
    if (v !== undefined) return String(v);
  }
  return undefined;
}

export function flagBool(values: FlagValues, name: FlagName): boolean {
  const v = values[name];
  return v === true || (typeof v === "string" && TRUE.has(v));
}

/** A flag explicitly given (true or false), as opposed to left at the node's default. */
export function isGiven(values: FlagValues, name: FlagName): boolean {
  return namesFor(name).some((n) => values[n] !== undefined);
}

function namesFor(name: FlagName): FlagName[] {
  const target = canonicalName(name);
  return FLAG_NAMES.filter((n) => canonicalName(n) === target);
}
