// A node's role, decided as the real node decides it (starter.go checks redeemer, orchestrator,
// transcoder, aiWorker, then broadcaster/gateway, and takes the first that is set).

import type { FlagValues } from "./flag-table.ts";
import { flagBool } from "./read.ts";

export type NodeRole = "orchestrator" | "transcoder" | "aiWorker" | "gateway" | "redeemer";

const PRECEDENCE: readonly NodeRole[] = ["redeemer", "orchestrator", "transcoder", "aiWorker", "gateway"];

/** Every role flag set to true (-broadcaster counts as gateway). */
export function rolesGiven(values: FlagValues): NodeRole[] {
  const given = new Set<NodeRole>();
  for (const role of PRECEDENCE) if (flagBool(values, role)) given.add(role);
  if (flagBool(values, "broadcaster")) given.add("gateway");
  return PRECEDENCE.filter((r) => given.has(r));
}

/** The node type the real node would run as, or undefined ("No services enabled"). */
export function roleOf(values: FlagValues): NodeRole | undefined {
  return rolesGiven(values)[0];
}
