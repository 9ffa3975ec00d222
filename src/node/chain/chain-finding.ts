// Findings and conditions as the chain checks produce them: a catalog finding (meaning and action
// from the catalog, the occurrence in the message) and a condition input with a stable reason.

import { catalogEntry } from "../diagnosis/catalog.ts";
import type { Finding } from "../diagnosis/types.ts";
import type { NodeChainFacts } from "./facts.ts";

export type ChainConditionType = "ChainHealthy" | "Registered" | "Funded";

export interface ChainCondition {
  type: ChainConditionType;
  status: "True" | "False" | "Unknown";
  /** CamelCase, stable (alerts and tools match on it). */
  reason: string;
  message: string;
  /** When False: error stops service (flips Ready), warning does not. */
  severity?: "warning" | "error";
}

/** What one check concluded. */
export interface CheckResult {
  condition?: ChainCondition;
  findings: Finding[];
}

export function chainFinding(id: string, message: string): Finding {
  const entry = catalogEntry(id);
  return { id, severity: entry.severity, message, meaning: entry.meaning, action: entry.action };
}

/** A wei amount as ETH (or LPT) in decimal, all its digits and no trailing zeros: "10", "0.25", "0". */
export function ethText(wei: bigint): string {
  const sign = wei < 0n ? "-" : "";
  const digits = (wei < 0n ? -wei : wei).toString().padStart(19, "0");
  const fraction = digits.slice(-18).replace(/0+$/, "");
  return `${sign}${digits.slice(0, -18)}${fraction ? `.${fraction}` : ""}`;
}

/** A condition that could not be judged because its reads did not happen. */
export function notRead(facts: NodeChainFacts, type: "Registered" | "Funded" = "Registered"): ChainCondition {
  const why = facts.readFailure
    ? `a chain read failed: ${facts.readFailure}`
    : "the chain could not be read (see ChainHealthy)";
  return { type, status: "Unknown", reason: "ChainNotRead", message: why };
}
