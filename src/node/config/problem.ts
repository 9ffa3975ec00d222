// One thing wrong with a node's flags: which flag, how bad, what is wrong and what to do.
import type { FlagValues } from "./flag-table.ts";
import { OFFCHAIN } from "./networks.ts";
import { flagText } from "./read.ts";
import { type NodeRole, roleOf, rolesGiven } from "./roles.ts";

export interface FlagProblem {
  /** Flag name without the dash ("maxSessions"), or several joined by "," for a combination. */
  flag: string;
  /** error: the node refuses to start or does not serve; warning: it runs, but not as intended. */
  severity: "error" | "warning";
  message: string;
  fix: string;
  /** The node's exit status when this stops it: glog.Exit's 1 unless the node calls its own exit() (2). */
  exitCode?: 1 | 2;
}

/** What every rule gets: the values plus the facts most rules need. */
export interface FlagContext {
  values: FlagValues;
  role: NodeRole | undefined;
  roles: NodeRole[];
  network: string;
  onChain: boolean;
}

export type FlagRule = (ctx: FlagContext) => FlagProblem[];

export function contextOf(values: FlagValues): FlagContext {
  const network = flagText(values, "network") ?? OFFCHAIN;
  return { values, role: roleOf(values), roles: rolesGiven(values), network, onChain: network !== OFFCHAIN };
}

export const problem = (
  flag: string,
  severity: FlagProblem["severity"],
  message: string,
  fix: string,
): FlagProblem => ({ flag, severity, message, fix });
