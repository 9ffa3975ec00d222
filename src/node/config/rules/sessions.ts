// -maxSessions: the node exits unless it is an integer > 0, or `auto` on an orchestrator whose
// transcoders are remote (its limit is then the sum of their capacities).
import { type FlagRule, problem } from "../problem.ts";
import { flagText } from "../read.ts";

export const maxSessions: FlagRule = ({ values, role, roles }) => {
  const value = flagText(values, "maxSessions");
  if (value === undefined) return [];
  if (value === "auto") {
    if (role === "orchestrator" && !roles.includes("transcoder")) return [];
    return [
      problem(
        "maxSessions",
        "error",
        "-maxSessions auto works only for an orchestrator without -transcoder (remote transcoders report capacity)",
        "give an integer > 0, e.g. the GPUs' streams capacity",
      ),
    ];
  }
  if (/^\d+$/.test(value) && Number(value) > 0) return [];
  return [
    problem(
      "maxSessions",
      "error",
      `-maxSessions ${value} is not an integer > 0: the node exits ("-maxSessions must be 'auto' or greater than zero")`,
      "give an integer > 0 (or auto for an orchestrator with remote transcoders)",
    ),
  ];
};
