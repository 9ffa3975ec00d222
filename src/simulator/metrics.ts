// /metrics of the simulated node: the real node's metric names (OpenCensus prefix livepeer_),
// in a Registry of its own so simulators never share state.
import { Counter, Gauge, Registry } from "prom-client";
import type { NodeModel } from "./node-model.ts";
import type { SimulatorState } from "./state.ts";

export type PaymentErrorsMetricName = "livepeer_payment_create_errors" | "node_payment_create_errors";

export function simulatorRegistry(
  node: NodeModel,
  state: SimulatorState,
  options: { nodeId: string; paymentErrorsMetric: PaymentErrorsMetricName },
): Registry {
  const registry = new Registry();
  const labels = { node_id: options.nodeId, node_type: nodeType(node.role) };
  const labelNames = ["node_id", "node_type"];
  new Gauge({
    name: "livepeer_current_sessions_total",
    help: "Number of streams currently transcoding",
    labelNames,
    registers: [registry],
    collect() {
      this.set(labels, state.currentSessions);
    },
  });
  new Gauge({
    name: "livepeer_max_sessions_total",
    help: "Max Sessions",
    labelNames,
    registers: [registry],
    collect() {
      this.set(labels, state.sessionLimit);
    },
  });
  new Counter({
    name: options.paymentErrorsMetric,
    help: "Errors when creating payments",
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(labels, state.paymentCreateErrors);
    },
  });
  if (node.role === "orchestrator") {
    new Gauge({
      name: "livepeer_transcoders_capacity",
      help: "Total advertised capacity of transcoders currently connected to orchestrator",
      labelNames,
      registers: [registry],
      collect() {
        this.set(labels, 0);
      },
    });
  }
  return registry;
}

function nodeType(role: NodeModel["role"]): string {
  return { gateway: "bctr", orchestrator: "orch", transcoder: "trcr", aiWorker: "aiwk", redeemer: "rdmr" }[
    role
  ];
}
