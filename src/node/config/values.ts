// Flag values as Go's `flag` package reads and prints them. Parsing follows strconv (ParseBool,
// ParseInt with base 0, ParseFloat) and time.ParseDuration, so a value we accept the node accepts.
import { type FlagName, type FlagSpec, type FlagValue, flagSpec } from "./flag-table.ts";

const GO_TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const GO_FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);
const GO_INT = /^[+-]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/;
const GO_FLOAT = /^[+-]?((\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)$/i;
const GO_DURATION = /^[+-]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/;

export type TypedValue = string | number | boolean;

/** Why a value does not fit its flag, in the words Go's flag package would use, or undefined. */
export function valueError(name: FlagName, raw: string): string | undefined {
  const spec = flagSpec(name);
  switch (spec.type) {
    case "bool":
      return GO_TRUE.has(raw) || GO_FALSE.has(raw)
        ? undefined
        : `invalid boolean value "${raw}" for -${name}: use true or false`;
    case "int":
      return GO_INT.test(raw) ? undefined : `invalid value "${raw}" for -${name}: not an integer`;
    case "float":
      return GO_FLOAT.test(raw) ? undefined : `invalid value "${raw}" for -${name}: not a number`;
    case "duration":
      return GO_DURATION.test(raw)
        ? undefined
        : `invalid value "${raw}" for -${name}: not a duration (e.g. 500ms, 30s, 5m)`;
    case "string":
      return undefined;
  }
}

/** Text as given on a command line, in the environment or a config file -> typed value. */
export function parseValue(name: FlagName, raw: string): TypedValue {
  const problem = valueError(name, raw);
  if (problem) throw new Error(problem);
  const spec = flagSpec(name);
  switch (spec.type) {
    case "bool":
      return GO_TRUE.has(raw);
    case "int":
      return parseGoInt(raw);
    case "float":
      return Number(raw.replace(/^([+-]?)inf(inity)?$/i, "$1Infinity").replace(/^[+-]?nan$/i, "NaN"));
    default:
      return raw;
  }
}

function parseGoInt(raw: string): number {
  const sign = raw.startsWith("-") ? -1 : 1;
  const body = raw.replace(/^[+-]/, "");
  if (/^0[xX]/.test(body)) return sign * Number.parseInt(body.slice(2), 16);
  if (/^0[bB]/.test(body)) return sign * Number.parseInt(body.slice(2), 2);
  if (/^0[oO]/.test(body)) return sign * Number.parseInt(body.slice(2), 8);
  if (/^0[0-7]+$/.test(body)) return sign * Number.parseInt(body.slice(1), 8);
  return sign * Number.parseInt(body, 10);
}

/**
 * A (possibly loosely typed) value -> the text the node reads. Numbers are fine for string flags
 * (`pixelsPerUnit: 1`), booleans only for bool flags; anything else is a caller bug.
 */
export function formatValue(name: FlagName, value: FlagValue): string {
  const spec: FlagSpec = flagSpec(name);
  if (spec.type === "bool") {
    if (typeof value === "boolean") return String(value);
    const text = String(value);
    if (GO_TRUE.has(text)) return "true";
    if (GO_FALSE.has(text)) return "false";
    throw new Error(`-${name} is a boolean flag: give true or false, not ${JSON.stringify(value)}`);
  }
  if (typeof value === "boolean") {
    throw new Error(`-${name} takes a ${spec.type} value, not the boolean ${value}`);
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`-${name}: ${value} is not a finite number`);
    if (spec.type === "int" && !Number.isInteger(value)) {
      throw new Error(`-${name} takes an integer, not ${value}`);
    }
    return String(value);
  }
  const problem = valueError(name, value);
  if (problem) throw new Error(problem);
  return value;
}
