// The chart's alerts as data: each one says what it watches (PromQL over the operator's own
// metrics), whose runbook entry explains it, and how promtool proves it fires and stays quiet.

/** A series promtool feeds in: labels in PromQL notation and its values (promtool's expanding notation). */
export interface InputSeries {
  series: string;
  values: string;
}

/** One promtool case: these series, evaluated at `at`, fire the alert with these labels, or not at all. */
export interface AlertCase {
  series: readonly InputSeries[];
  at: string;
  /** The alert's labels beyond alertname and severity; absent: the alert must not fire. */
  fires?: Readonly<Record<string, string>>;
}

export interface AlertRule {
  /** CamelCase, prefixed Livepeer. */
  alert: string;
  /** Which rule group it lands in. */
  group: "nodes" | "chain" | "duties" | "controller" | "delivery" | "signers";
  /**
   * The runbook entry it links to and whose meaning and action it carries: a diagnosis catalog id,
   * or an id of OPERATOR_ENTRIES (conditions of the operator itself, not of a node).
   */
  entry: string;
  /**
   * For an alert over many findings: the label whose value (lower-cased) is the runbook anchor,
   * so each firing alert links to its own finding's entry rather than to `entry`.
   */
  anchorLabel?: string;
  severity: "warning" | "critical";
  /**
   * PromQL. `$CONTROLLER` and `$API` stand for the label matchers of the controller's and the
   * API's series; `<<alerts.x>>` for a chart value (rendered as `{{ .Values.alerts.x }}`).
   */
  expr: string;
  /** A Helm condition the rule is shipped under (e.g. `.Values.api.enabled`); absent: always. */
  when?: string;
  /** A duration, or `<<alerts.x>>`. */
  for: string;
  /** One line; may use `{{ $labels.x }}` (Prometheus' template, kept out of Helm's way). */
  summary: string;
  /** The alert fires on these series... */
  fires: AlertCase;
  /** ...and stays quiet on these (a near miss: too short, another id, the healthy state). */
  quiet: readonly AlertCase[];
}

/** A runbook entry of the operator's own (not a node diagnosis). */
export interface OperatorEntry {
  id: string;
  title: string;
  meaning: string;
  action: string;
}
