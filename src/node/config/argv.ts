// The node's command line, read and written the way Go's `flag` package does it: `-name=value`
// or `-name value` (one or two dashes), a bare `-name` sets a boolean to true, and parsing stops
// at the first argument that is not a flag (or after `--`). Everything after that stop is
// silently ignored by the node - a classic trap (`-reward false` leaves reward on and drops every
// flag after it), so the parser reports those arguments instead of dropping them.
import { FlagParseError } from "./errors.ts";
import {
  canonicalName,
  FLAG_NAMES,
  type FlagName,
  type FlagValues,
  flagSpec,
  isFlagName,
  type NodeFlags,
} from "./flag-table.ts";
import { formatValue, parseValue, valueError } from "./values.ts";

export interface ParsedFlags {
  flags: NodeFlags;
  /** Names as written (aliases not folded), in order, for deprecation notes. */
  seen: FlagName[];
}

export interface ParsedArgv extends ParsedFlags {
  /** Arguments after the first non-flag: the node ignores them without a word. */
  ignored: string[];
}

export function setFlag(flags: NodeFlags, name: FlagName, value: string | number | boolean): void {
  (flags as Record<string, unknown>)[canonicalName(name)] = value;
}

export function parseArgv(argv: readonly string[]): ParsedArgv {
  const flags: NodeFlags = {};
  const seen: FlagName[] = [];
  const args = [...argv];
  while (args.length > 0) {
    const arg = args[0]!;
    if (arg.length < 2 || !arg.startsWith("-")) break;
    if (arg === "--") {
      args.shift();
      break;
    }
    const body = arg.slice(arg.startsWith("--") ? 2 : 1);
    if (body === "" || body.startsWith("-") || body.startsWith("=")) {
      throw new FlagParseError("command line", `bad flag syntax: ${arg}`);
    }
    args.shift();
    const eq = body.indexOf("=", 1);
    const name = eq < 0 ? body : body.slice(0, eq);
    let raw = eq < 0 ? undefined : body.slice(eq + 1);
    if (!isFlagName(name)) {
      if (name === "help" || name === "h") {
        throw new FlagParseError("command line", `-${name}: the node prints its usage and exits`, 0);
      }
      throw new FlagParseError(
        "command line",
        `flag provided but not defined: -${name} (go-livepeer has no such flag; check the spelling and case)`,
      );
    }
    if (flagSpec(name).type === "bool") {
      raw ??= "true";
    } else if (raw === undefined) {
      const next = args.shift();
      if (next === undefined) throw new FlagParseError("command line", `flag needs an argument: -${name}`);
      raw = next;
    }
    const problem = valueError(name, raw);
    if (problem) throw new FlagParseError("command line", problem);
    setFlag(flags, name, parseValue(name, raw));
    seen.push(name);
  }
  return { flags, seen, ignored: args };
}

/**
 * Flags -> argv in table order, always `-name=value` (booleans `-name=true` / `-name=false`): the
 * one form Go reads the same way for every type, and safe for values that start with a dash.
 */
export function renderArgv(values: FlagValues): string[] {
  return orderedEntries(values).map(([name, text]) => `-${name}=${text}`);
}

/** Known flags with a value, in table order, formatted; unknown names are a caller bug. */
export function orderedEntries(values: FlagValues): [FlagName, string][] {
  for (const name of Object.keys(values)) {
    if (!isFlagName(name)) {
      throw new Error(`"${name}" is not a go-livepeer flag: the node would refuse to start`);
    }
  }
  const out = new Map<FlagName, string>();
  for (const name of FLAG_NAMES) {
    const value = values[name];
    if (value === undefined) continue;
    const canonical = canonicalName(name);
    const text = formatValue(name, value);
    const earlier = out.get(canonical);
    if (earlier !== undefined && earlier !== text) {
      throw new Error(`-${name} and -${canonical} name one setting but disagree: keep only -${canonical}`);
    }
    out.set(canonical, text);
  }
  return [...out];
}
