// The remote signers' auth webhook alerts (the API's /metrics: livepeer_signer_auth_*): a tenant
// refused most of the time, and decisions slow enough to hold up payments (a signer waits on
// each one, and fails the payment after 5 s).
import type { AlertRule } from "./types.ts";

const API = 'job="lpo-api"';
const decisions = (tenant: string, outcome: string, values: string) => ({
  series: `livepeer_signer_auth_decisions_total{${API},pod="a",namespace="video",name="signer",tenant="${tenant}",outcome="${outcome}"}`,
  values,
});
const bucket = (le: string, values: string) => ({
  series: `livepeer_signer_auth_decision_duration_seconds_bucket{${API},pod="a",namespace="video",name="signer",le="${le}"}`,
  values,
});
/** 60 decisions a minute, taking 100-250 ms (slow) or under 10 ms (fast). */
const durations = (slow: boolean) => [
  bucket("0.01", slow ? "0x40" : "0+60x40"),
  bucket("0.1", slow ? "0x40" : "0+60x40"),
  bucket("0.25", "0+60x40"),
  bucket("+Inf", "0+60x40"),
];

export const SIGNER_AUTH_ALERTS: readonly AlertRule[] = [
  {
    alert: "LivepeerSignerTenantRefused",
    group: "signers",
    entry: "SignerTenantRefused",
    severity: "warning",
    when: ".Values.api.enabled",
    expr: [
      'sum by (namespace, name, tenant) (rate(livepeer_signer_auth_decisions_total{$API,outcome!="allowed"}[15m]))',
      "/ sum by (namespace, name, tenant) (rate(livepeer_signer_auth_decisions_total{$API}[15m])) > <<alerts.signerAuth.refusedRatio>>",
    ].join("\n"),
    for: "15m",
    summary:
      "RemoteSigner {{ $labels.namespace }}/{{ $labels.name }} refuses most payments of tenant '{{ $labels.tenant }}'",
    fires: {
      series: [decisions("acme", "over_budget", "0+8x60"), decisions("acme", "allowed", "0+2x60")],
      at: "40m",
      fires: { namespace: "video", name: "signer", tenant: "acme" },
    },
    quiet: [
      {
        series: [decisions("acme", "over_budget", "0+1x60"), decisions("acme", "allowed", "0+9x60")],
        at: "40m",
      },
      // Another tenant's refusals are its own.
      {
        series: [
          decisions("beta", "unknown_tenant", "0+8x60"),
          decisions("acme", "allowed", "0+9x60"),
          decisions("beta", "allowed", "0+9x60"),
        ],
        at: "40m",
      },
    ],
  },
  {
    alert: "LivepeerSignerAuthSlow",
    group: "signers",
    entry: "SignerAuthSlow",
    severity: "warning",
    when: ".Values.api.enabled",
    expr: "histogram_quantile(0.99, sum by (le) (rate(livepeer_signer_auth_decision_duration_seconds_bucket{$API}[5m]))) > <<alerts.signerAuth.slowSeconds>>",
    for: "10m",
    summary: "the API's p99 answer to remote signers' auth webhook is above alerts.signerAuth.slowSeconds",
    fires: { series: durations(true), at: "30m", fires: {} },
    quiet: [
      { series: durations(false), at: "30m" },
      // Slow, but not for 10 minutes yet.
      { series: durations(true), at: "8m" },
    ],
  },
];
