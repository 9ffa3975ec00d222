// What an Orchestrator's status says of its price (pure): the price its node advertised to the
// controller, else its spec's, said to be configured; and, on chain, the price it quoted each
// Gateway that selects it, as that Gateway's status says the gateway's node lists it.
import type { StoredGateway } from "../../schema/gateway.ts";
import type { OrchestratorStatus, StoredOrchestrator } from "../../schema/orchestrator.ts";
import type { DoctorReport } from "../doctor/index.ts";

/**
 * The price the orchestrator's node advertised to the controller, once the doctor has read one;
 * else the spec's, said to be configured: off chain the node advertises none, and on chain it
 * quotes only a signed, funded asker (what it quoted each gateway is in `quotes`).
 */
export function knownPrice(seen: {
  doctor?: { report: DoctorReport } | undefined;
  orch: StoredOrchestrator;
}): Pick<OrchestratorStatus, "pricePerUnit" | "pixelsPerUnit" | "priceSource"> {
  const price = seen.doctor?.report.readings.find((r) => r.price)?.price;
  if (price) {
    return {
      pricePerUnit: price.pricePerUnit,
      pixelsPerUnit: price.pixelsPerUnit,
      priceSource: "advertised",
    };
  }
  const spec = seen.orch.spec;
  if (spec.pricePerUnit === undefined) return {};
  return {
    pricePerUnit: spec.pricePerUnit,
    pixelsPerUnit: spec.pixelsPerUnit ?? 1,
    priceSource: "configured",
  };
}

/** What it quoted each Gateway that selects it, as the Gateway's status says its node lists it. */
export function quotesOf(seen: {
  gateways?: readonly StoredGateway[] | undefined;
  orch: StoredOrchestrator;
}): Pick<OrchestratorStatus, "quotes"> {
  const name = seen.orch.metadata?.name;
  const quotes = (seen.gateways ?? [])
    .flatMap((g) => {
      const given = g.status?.orchestrators?.find((o) => o.name === name && o.priceSource === "quoted");
      if (!given || given.pricePerUnit === undefined) return [];
      return [
        {
          gateway: g.metadata?.name ?? "",
          pricePerUnit: given.pricePerUnit,
          pixelsPerUnit: given.pixelsPerUnit ?? 1,
          ...(given.quotedAt ? { quotedAt: given.quotedAt } : {}),
        },
      ];
    })
    .sort((a, b) => a.gateway.localeCompare(b.gateway));
  return quotes.length ? { quotes } : {};
}
