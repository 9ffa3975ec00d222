// LP_* environment variables: the node (peterbourgon/ff with prefix "LP") reads one variable per
// flag, named LP_ + the flag name upper-cased (LP_MAXSESSIONS). Empty values are skipped, and
// variables that match no flag are ignored (ff walks the flags, not the environment).

import { type ParsedFlags, setFlag } from "./argv.ts";
import { FlagParseError } from "./errors.ts";
import { FLAG_NAMES, type FlagName, type NodeFlags } from "./flag-table.ts";
import { parseValue, valueError } from "./values.ts";

export function envName(name: FlagName): string {
  return `LP_${name.toUpperCase()}`;
}

export type Environment = Readonly<Record<string, string | undefined>>;

export function parseEnv(env: Environment): ParsedFlags {
  const flags: NodeFlags = {};
  const seen: FlagName[] = [];
  for (const name of FLAG_NAMES) {
    const variable = envName(name);
    const raw = env[variable];
    if (raw === undefined || raw === "") continue;
    const problem = valueError(name, raw);
    if (problem) {
      throw new FlagParseError(
        "environment",
        `error setting flag "${name}" from environment variable "${variable}": ${problem}`,
      );
    }
    setFlag(flags, name, parseValue(name, raw));
    seen.push(name);
  }
  return { flags, seen };
}
