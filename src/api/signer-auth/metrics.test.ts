import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { Outcome } from "./decision.ts";
import { DECISION_BUCKETS, SignerAuthMetrics } from "./metrics.ts";

/** The metrics as observing each call in prom-client would give them (what they were before). */
function perCall(registry: Registry) {
  const decisions = new Counter({
    name: "livepeer_signer_auth_decisions_total",
    help: "Remote signers' auth webhook decisions by RemoteSigner, tenant and outcome (allowed, or the refusal's cause)",
    labelNames: ["namespace", "name", "tenant", "outcome"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "livepeer_signer_auth_decision_duration_seconds",
    help: "How long the API took to answer a remote signer's auth webhook call",
    labelNames: ["namespace", "name"],
    buckets: DECISION_BUCKETS,
    registers: [registry],
  });
  return (namespace: string, name: string, tenant: string, outcome: Outcome, seconds: number) => {
    decisions.inc({ namespace, name, tenant, outcome });
    duration.observe({ namespace, name }, seconds);
  };
}

const CALLS: [string, string, string, Outcome, number][] = [
  ["pay", "a", "acme", "allowed", 0.0001],
  ["pay", "a", "acme", "allowed", 0.0005], // on a bound: in that bucket
  ["pay", "a", "acme", "over_budget", 0.003],
  ["pay", "a", "", "unauthenticated", 0.02],
  ["pay", "b", "beta", "allowed", 0.7],
  ["pay", "b", "beta", "allowed", 3], // above the largest bound: +Inf only
  ["other", "a", "acme", "price_exceeded", 0.0011],
];

// Sums added in another order differ in the last bits of a double: compared to 1e-9 s.
const rounded = (text: string) =>
  text.replace(
    /(_sum\{[^}]*\}) (\S+)/g,
    (_, series: string, v: string) => `${series} ${Number(v).toFixed(9)}`,
  );

describe("SignerAuthMetrics", () => {
  it("reads on /metrics exactly as observing each call in prom-client would, across scrapes", async () => {
    const ours = new Registry();
    const reference = new Registry();
    const metrics = new SignerAuthMetrics(ours);
    const observe = perCall(reference);
    for (const c of CALLS) {
      metrics.observe(...c);
      observe(...c);
    }
    expect(rounded(await ours.metrics())).toBe(rounded(await reference.metrics()));
    // Counted since the last scrape, added to what prom-client holds.
    for (const c of [...CALLS, ...CALLS.slice(2)]) {
      metrics.observe(...c);
      observe(...c);
    }
    const text = await ours.metrics();
    expect(rounded(text)).toBe(rounded(await reference.metrics()));
    expect(text).toContain(
      'livepeer_signer_auth_decisions_total{namespace="pay",name="a",tenant="acme",outcome="allowed"} 4',
    );
    expect(text).toContain(
      'livepeer_signer_auth_decision_duration_seconds_count{namespace="pay",name="b"} 6',
    );
    const json = async (r: Registry) =>
      (await r.getMetricsAsJSON()).map((m) => ({
        ...m,
        values: m.values.map((v) => ({ ...v, value: Number(v.value.toFixed(9)) })),
      }));
    expect(await json(ours)).toEqual(await json(reference));
  });

  it("shows nothing for a signer before its first call", async () => {
    const registry = new Registry();
    new SignerAuthMetrics(registry);
    expect(await registry.metrics()).not.toMatch(/namespace=/);
  });
});
