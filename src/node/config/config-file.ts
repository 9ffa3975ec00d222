// The node's plain config file (-config): one `name value` per line, split at the first space,
// value trimmed, a bare `name` meaning true, `#` starting a comment line and ` #` an inline one.
// Names are flag names WITHOUT a leading dash; an unknown name stops the node.
import { orderedEntries, type ParsedFlags, setFlag } from "./argv.ts";
import { envName } from "./env.ts";
import { FlagParseError } from "./errors.ts";
import {
  FLAG_NAMES,
  type FlagName,
  type FlagValues,
  flagSpec,
  isFlagName,
  type NodeFlags,
} from "./flag-table.ts";
import { parseValue, valueError } from "./values.ts";

// ff also accepts a flag's environment variable name as a config file key (LP_NETWORK devnet).
const byEnvName = new Map<string, FlagName>(FLAG_NAMES.map((n) => [envName(n), n]));

export function parseConfigFile(text: string): ParsedFlags {
  const flags: NodeFlags = {};
  const seen: FlagName[] = [];
  const lines = text.split("\n");
  for (const [index, rawLine] of lines.entries()) {
    const where = `config file line ${index + 1}`;
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#")) continue;
    const space = line.indexOf(" ");
    const key = space < 0 ? line : line.slice(0, space);
    let raw = space < 0 ? "true" : line.slice(space).trim();
    const comment = raw.indexOf(" #");
    if (comment >= 0) raw = raw.slice(0, comment).trim();
    const name = isFlagName(key) ? key : byEnvName.get(key);
    if (!name) {
      const hint = key.startsWith("-")
        ? `: write flag names without the dash ("${key.replace(/^-+/, "")} ...")`
        : ": go-livepeer has no such flag (names are case-sensitive)";
      throw new FlagParseError(
        "config file",
        `${where}: config file flag "${key}" not defined in flag set${hint}`,
      );
    }
    const problem = valueError(name, raw);
    if (problem) throw new FlagParseError("config file", `${where}: ${problem}`);
    setFlag(flags, name, parseValue(name, raw));
    seen.push(name);
  }
  return { flags, seen };
}

export interface RenderConfigFileOptions {
  /** Comment lines written first (each prefixed with "# "). */
  header?: string | readonly string[];
}

/**
 * Flags -> config file text, in table order. A value the format cannot carry (empty, with
 * surrounding spaces, a newline or " #") throws naming the flag: pass that one on the command line.
 */
export function renderConfigFile(values: FlagValues, options: RenderConfigFileOptions = {}): string {
  const header = options.header === undefined ? [] : [options.header].flat();
  const out = header.flatMap((h) => h.split("\n")).map((h) => `# ${h}`.trimEnd());
  for (const [name, text] of orderedEntries(values)) {
    if (flagSpec(name).type === "bool") {
      out.push(text === "true" ? name : `${name} false`);
      continue;
    }
    const why = unrepresentable(text);
    if (why) {
      throw new Error(
        `-${name} cannot be written to the node's config file (${why}): pass it on the command line`,
      );
    }
    out.push(`${name} ${text}`);
  }
  return `${out.join("\n")}\n`;
}

function unrepresentable(text: string): string | undefined {
  if (text === "") return "an empty value would read as true";
  if (/[\r\n]/.test(text)) return "it contains a line break";
  if (text !== text.trim()) return "leading or trailing whitespace is trimmed";
  if (text.includes(" #")) return 'the node cuts a value at " #"';
  return undefined;
}
