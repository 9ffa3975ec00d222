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
  | { kind: "chain"; read: string; rule: string }
  /** What the operator hands the node (a Secret's file), checked before the node reads it. */
  | { kind: "config"; input: string; rule: string };

/**
 * When a finding recognised from a log line stops being in force: a line is an event, not a
 * state. Findings from endpoints, metrics, chain reads and configuration hold exactly while the
 * check says so and need no rule.
 */
export type Clearing =
  /** A passing condition: in force until no matching line was printed for this long. */
  | { after: "quiet"; minutes: number }
  /**
   * Fatal at start, or a state that lasts as long as the process: in force until a container
   * started after the last matching line is Ready.
   */
  | { after: "restart" };

export interface CatalogEntry {
  /** CamelCase, stable: used in status.findings and Events. */
  id: string;
  /** The condition as the spec (or the real node) words it. */
  condition: string;
  severity: Severity;
  recognizedBy: readonly Recognition[];
  /** Required when recognizedBy has a log pattern. */
  clears?: Clearing;
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
