// The auth webhook's metrics (on the API's /metrics): decisions by signer, tenant and outcome
// (tenant "" when the caller named none the signer knows), and how long a decision took.
import { Counter, Histogram, type Registry } from "prom-client";
import type { Outcome } from "./decision.ts";

// A signer waits on each decision: milliseconds matter.
const DECISION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export class SignerAuthMetrics {
  readonly #decisions: Counter<"namespace" | "name" | "tenant" | "outcome">;
  readonly #duration: Histogram<"namespace" | "name">;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#decisions = new Counter({
      name: "livepeer_signer_auth_decisions_total",
      help: "Remote signers' auth webhook decisions by RemoteSigner, tenant and outcome (allowed, or the refusal's cause)",
      labelNames: ["namespace", "name", "tenant", "outcome"],
      registers,
    });
    this.#duration = new Histogram({
      name: "livepeer_signer_auth_decision_duration_seconds",
      help: "How long the API took to answer a remote signer's auth webhook call",
      labelNames: ["namespace", "name"],
      buckets: DECISION_BUCKETS,
      registers,
    });
  }

  observe(namespace: string, name: string, tenant: string, outcome: Outcome, seconds: number): void {
    this.#decisions.inc({ namespace, name, tenant, outcome });
    this.#duration.observe({ namespace, name }, seconds);
  }
}
