// One runbook entry per id, whether a node diagnosis (the catalog) or the operator's own: what
// an alert's annotations carry and where its runbook_url points.
import { CATALOG_BY_ID } from "../node/diagnosis/catalog.ts";
import { OPERATOR_ENTRY_BY_ID } from "./operator-entries.ts";

export interface RunbookEntry {
  id: string;
  meaning: string;
  action: string;
}

export function runbookEntry(id: string): RunbookEntry {
  const found = CATALOG_BY_ID.get(id) ?? OPERATOR_ENTRY_BY_ID.get(id);
  if (!found) {
    throw new Error(
      `alert entry ${id} is neither in the diagnosis catalog (src/node/diagnosis/catalog.ts) nor in OPERATOR_ENTRIES (src/alerts/operator-entries.ts): add it to one of them`,
    );
  }
  return { id: found.id, meaning: found.meaning, action: found.action };
}

/** The anchor GitHub gives the entry's heading (`### RewardNotCalled` -> `rewardnotcalled`). */
export const runbookAnchor = (id: string) => id.toLowerCase();
