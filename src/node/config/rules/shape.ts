// Names and value types: the node exits on an unknown name or a value its type cannot parse.
import { FLAG_NAMES, type FlagSpec, flagSpec, isFlagName } from "../flag-table.ts";
import { type FlagRule, problem } from "../problem.ts";
import { formatValue } from "../values.ts";

export const knownNames: FlagRule = ({ values }) =>
  Object.keys(values)
    .filter((name) => values[name] !== undefined && !isFlagName(name))
    .map((name) => {
      const near = FLAG_NAMES.find((n) => n.toLowerCase() === name.replace(/^-+/, "").toLowerCase());
      return problem(
        name,
        "error",
        `"${name}" is not a go-livepeer flag: the node exits at startup`,
        near
          ? `did you mean -${near}? (names are case-sensitive, without a dash)`
          : "remove it or fix the spelling",
      );
    });

export const valueTypes: FlagRule = ({ values }) =>
  Object.entries(values).flatMap(([name, value]) => {
    if (value === undefined || !isFlagName(name)) return [];
    try {
      formatValue(name, value);
      return [];
    } catch (err) {
      return [problem(name, "error", (err as Error).message, `give -${name} a ${typeWord(flagSpec(name))}`)];
    }
  });

export const deprecatedNames: FlagRule = ({ values }) =>
  Object.keys(values).flatMap((name) => {
    if (!isFlagName(name) || values[name] === undefined) return [];
    const use = flagSpec(name).deprecated;
    return use
      ? [problem(name, "warning", `-${name} is deprecated in go-livepeer`, `use -${use} instead`)]
      : [];
  });

export const aliasAgreement: FlagRule = ({ values }) =>
  values.datadir !== undefined &&
  values.dataDir !== undefined &&
  String(values.datadir) !== String(values.dataDir)
    ? [
        problem(
          "dataDir,datadir",
          "error",
          `-dataDir ${values.dataDir} and -datadir ${values.datadir} set the same directory to different values`,
          "keep only -dataDir",
        ),
      ]
    : [];

function typeWord(spec: FlagSpec): string {
  return {
    bool: "boolean (true or false)",
    int: "whole number",
    float: "number",
    duration: "duration such as 30s or 5m",
    string: "text value",
  }[spec.type];
}
