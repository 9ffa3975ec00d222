// Which value the node ends up with: command line > LP_* environment > config file > default,
// decided per flag. Pure: the caller reads the config file (see configFilePath) and passes its text.
import { parseArgv } from "./argv.ts";
import { parseConfigFile } from "./config-file.ts";
import { type Environment, envName, parseEnv } from "./env.ts";
import type { FlagOrigin } from "./errors.ts";
import { canonicalName, FLAG_NAMES, type FlagName, type NodeFlags } from "./flag-table.ts";

export interface ResolveInput {
  argv: readonly string[];
  env?: Environment;
  /** Text of the file named by -config / LP_CONFIG, when there is one. */
  configFile?: string;
}

export interface ResolvedFlags {
  flags: NodeFlags;
  /** Where each given flag's value came from. */
  sources: Partial<Record<FlagName, FlagOrigin>>;
  /** Command-line arguments the node ignores (everything after the first non-flag). */
  ignoredArgs: string[];
  /** Names used as written, from every origin (to warn about deprecated spellings). */
  seen: FlagName[];
}

/** Throws FlagParseError (with the node's exit code) where the node would refuse to start. */
export function resolveFlags(input: ResolveInput): ResolvedFlags {
  const commandLine = parseArgv(input.argv);
  const layers: [FlagOrigin, { flags: NodeFlags; seen: FlagName[] }][] = [
    ["command line", commandLine],
    ["environment", parseEnv(input.env ?? {})],
    ["config file", parseConfigFile(input.configFile ?? "")],
  ];
  const flags: Record<string, unknown> = {};
  const sources: Partial<Record<FlagName, FlagOrigin>> = {};
  for (const [origin, layer] of layers) {
    for (const [name, value] of Object.entries(layer.flags)) {
      if (name in flags) continue;
      flags[name] = value;
      sources[name as FlagName] = origin;
    }
  }
  return {
    flags: orderByTable(flags as NodeFlags),
    sources,
    ignoredArgs: commandLine.ignored,
    seen: layers.flatMap(([, l]) => l.seen),
  };
}

/** The config file the node would read: -config from the command line, else LP_CONFIG. */
export function configFilePath(input: { argv: readonly string[]; env?: Environment }): string | undefined {
  const fromArgv = parseArgv(input.argv).flags.config;
  if (fromArgv) return fromArgv;
  const fromEnv = input.env?.[envName("config")];
  return fromEnv ? fromEnv : undefined;
}

function orderByTable(flags: NodeFlags): NodeFlags {
  const out: Record<string, unknown> = {};
  for (const name of FLAG_NAMES) {
    const key = canonicalName(name);
    if (key === name && flags[name] !== undefined) out[name] = flags[name];
  }
  return out as NodeFlags;
}
