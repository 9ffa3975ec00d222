// GET /metrics (CLI port, with -monitor): Prometheus text, parsed with parse-prometheus-text-format.
// Values are summed over label sets (node_id, node_type, manifest_id ...).
import parsePrometheusTextFormat, { type PrometheusFamily } from "parse-prometheus-text-format";
import { NodeEndpointError } from "./errors.ts";
import { missingField, type RequestOptions, requestText } from "./http.ts";

/** The real node's names first, then the spec's (`node_payment_create_errors`). */
export const METRIC_NAMES = {
  paymentCreateErrors: [
    "livepeer_payment_create_errors",
    "node_payment_create_errors",
    "livepeer_payment_create_errors_total",
    "node_payment_create_errors_total",
  ],
  currentSessions: ["livepeer_current_sessions_total"],
  maxSessions: ["livepeer_max_sessions_total"],
  transcodersCapacity: ["livepeer_transcoders_capacity"],
} as const;

export type NodeMetricName = keyof typeof METRIC_NAMES;

export type NodeMetrics = { [K in NodeMetricName]: number | undefined } & {
  /** Every family, for anything else a caller wants. */
  families: PrometheusFamily[];
};

export interface MetricsOptions extends RequestOptions {
  require?: readonly NodeMetricName[];
}

export async function readMetrics(baseUrl: string, options: MetricsOptions = {}): Promise<NodeMetrics> {
  const endpoint = "/metrics";
  const text = await requestText({ method: "GET", baseUrl, endpoint }, options);
  let families: PrometheusFamily[];
  try {
    families = parsePrometheusTextFormat(text);
  } catch (err) {
    throw new NodeEndpointError({
      baseUrl,
      endpoint,
      reason: "bad-metrics",
      detail: `not Prometheus text: ${(err as Error).message.slice(0, 120)}`,
      cause: err,
    });
  }
  const byName = new Map(families.map((f) => [f.name, f]));
  const read = (metric: NodeMetricName): number | undefined => {
    for (const name of METRIC_NAMES[metric]) {
      const family = byName.get(name);
      if (!family || family.metrics.length === 0) continue;
      let sum = 0;
      for (const sample of family.metrics) {
        const value = Number(sample.value);
        if (sample.value === undefined || Number.isNaN(value)) {
          throw new NodeEndpointError({
            baseUrl,
            endpoint,
            reason: "invalid-field",
            field: name,
            detail: `metric ${name} has a non-numeric value ${JSON.stringify(sample.value)}`,
          });
        }
        sum += value;
      }
      return sum;
    }
    return undefined;
  };
  const metrics: NodeMetrics = {
    paymentCreateErrors: read("paymentCreateErrors"),
    currentSessions: read("currentSessions"),
    maxSessions: read("maxSessions"),
    transcodersCapacity: read("transcodersCapacity"),
    families,
  };
  for (const name of options.require ?? []) {
    if (metrics[name] === undefined) throw missingField(baseUrl, endpoint, METRIC_NAMES[name][0]);
  }
  return metrics;
}
