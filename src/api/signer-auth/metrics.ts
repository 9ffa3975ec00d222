// The auth webhook's metrics (on the API's /metrics): decisions by signer, tenant and outcome
// (tenant "" when the caller named none the signer knows), and how long a decision took.
//
// A signer waits on every decision, so a call only adds to plain numbers (a count per label set,
// a bucket count, a sum); prom-client gets them when /metrics is read (its collect hook), which
// costs a scrape a few label sets instead of every call prom-client's label hashing (measured:
// bench/signer-auth.ts). Same names, labels, buckets and values as observing each call.
import { Counter, Histogram, type Registry } from "prom-client";
import type { Outcome } from "./decision.ts";
import { PairMap } from "./pair-map.ts";

// A signer waits on each decision: milliseconds matter.
export const DECISION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

type SignerLabels = { namespace: string; name: string };
type DecisionLabels = SignerLabels & { tenant: string; outcome: Outcome };

/** One RemoteSigner's calls since the last scrape. */
interface SignerTally {
  labels: SignerLabels;
  decisions: PairMap<{ labels: DecisionLabels; n: number }>;
  /** Per bucket (not cumulative); the last slot is above the largest bound (+Inf only). */
  buckets: number[];
  sum: number;
  count: number;
}

/** prom-client's per-label-set histogram values (lib/histogram.js createBaseValues). */
interface HistogramValues {
  labels: Record<string, string>;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
}

export class SignerAuthMetrics {
  readonly #tallies = new PairMap<SignerTally>();
  /** The same tallies, for the scrape. */
  readonly #all: SignerTally[] = [];

  constructor(registry: Registry) {
    const registers = [registry];
    const tallies = this.#all;
    new Counter({
      name: "livepeer_signer_auth_decisions_total",
      help: "Remote signers' auth webhook decisions by RemoteSigner, tenant and outcome (allowed, or the refusal's cause)",
      labelNames: ["namespace", "name", "tenant", "outcome"],
      registers,
      collect() {
        for (const t of tallies) {
          t.decisions.deleteWhere((d) => {
            if (d.n > 0) this.inc(d.labels, d.n);
            d.n = 0;
            return false;
          });
        }
      },
    });
    new Histogram({
      name: "livepeer_signer_auth_decision_duration_seconds",
      help: "How long the API took to answer a remote signer's auth webhook call",
      labelNames: ["namespace", "name"],
      buckets: DECISION_BUCKETS,
      registers,
      collect() {
        // prom-client has no call to add bucket counts: its values for the label set, as zero() made them.
        const values = (this as unknown as { hashMap: Record<string, HistogramValues> }).hashMap;
        for (const t of tallies) {
          if (t.count === 0) continue;
          const matches = (v: HistogramValues) =>
            v.labels.namespace === t.labels.namespace && v.labels.name === t.labels.name;
          let v = Object.values(values).find(matches);
          if (!v) {
            this.zero(t.labels);
            v = Object.values(values).find(matches)!;
          }
          DECISION_BUCKETS.forEach((bound, i) => {
            v.bucketValues[bound] = (v.bucketValues[bound] ?? 0) + t.buckets[i]!;
          });
          v.sum += t.sum;
          v.count += t.count;
          t.buckets.fill(0);
          t.sum = 0;
          t.count = 0;
        }
      },
    });
  }

  observe(namespace: string, name: string, tenant: string, outcome: Outcome, seconds: number): void {
    let t = this.#tallies.get(namespace, name);
    if (!t) {
      t = {
        labels: { namespace, name },
        decisions: new PairMap(),
        buckets: new Array(DECISION_BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      this.#tallies.set(namespace, name, t);
      this.#all.push(t);
    }
    const d = t.decisions.get(tenant, outcome);
    if (d) d.n++;
    else t.decisions.set(tenant, outcome, { labels: { namespace, name, tenant, outcome }, n: 1 });
    let i = 0;
    while (i < DECISION_BUCKETS.length && seconds > DECISION_BUCKETS[i]!) i++;
    t.buckets[i]!++;
    t.sum += seconds;
    t.count++;
  }
}
