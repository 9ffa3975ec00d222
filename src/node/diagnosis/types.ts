// The node doctor's vocabulary: catalog entries (what can go wrong and how it is recognised) and
// findings (what was seen).

/** normal: recognised and not alarmed on; warning: never flips Ready; error: stops service. */
export type Severity = "normal" | "warning" | "error";

export const SEVERITY_ORDER: readonly Severity[] = ["error", "warning", "normal"];

/** How a condition shows itself. Log patterns are matched case-insensitively, line by line. */
export type Recognition =
  | { kind: "log"; pattern: RegExp }
  | { kind: "metric"; metrics: readonly string[]; rule: string }
  | { kind: "endpoint"; endpoint: string; rule: string }
  | { kind: "chain"; read: string; rule: string };

export interface CatalogEntry {
  /** CamelCase, stable: used in status.findings and Events. */
  id: string;
  /** The condition as the spec (or the real node) words it. */
  condition: string;
  severity: Severity;
  recognizedBy: readonly Recognition[];
  /** In an operator's words. */
  meaning: string;
  action: string;
  /** Which node's logs or endpoints show it. */
  seenOn: readonly ("gateway" | "orchestrator" | "transcoder" | "aiWorker")[];
  /** spec: the spec's error table; spec-silent: its silent behaviours; real-node: from go-livepeer. */
  origin: "spec" | "spec-silent" | "spec-limit" | "real-node";
}

export interface Finding {
  id: string;
  severity: Severity;
  /** This occurrence, with its numbers. */
  message: string;
  meaning: string;
  action: string;
}

export interface LogFinding extends Finding {
  condition: string;
  count: number;
  firstLine: string;
  firstLineNumber: number;
  lastLine: string;
  lastLineNumber: number;
  /** The first few distinct matching lines (bounded). */
  samples: string[];
}
