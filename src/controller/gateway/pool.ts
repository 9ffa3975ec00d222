// Which orchestrators a gateway is given (pure): the Orchestrators its selector picks in its
// namespace, those that serve (Ready=True) and have an address the gateway can dial, each with the
// price it quoted this gateway (on chain, as the gateway's node lists it), else the price its node
// advertised, else its spec, and whether the gateway's cap reaches it. The rest are named with the
// reason they were left out, so the status can say why a gateway has none.
import { type LabelSelector, selectorMatches } from "../../kube/label-selector.ts";
import type { GivenOrchestrator } from "../../schema/gateway.ts";
import { type Quote, quoteFor } from "./quotes.ts";

/** What the pool reads of an Orchestrator (a loose view: hand-written objects may lack fields). */
export interface OrchestratorView {
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: {
    ethAcctAddr?: string;
    pricePerUnit?: string;
    pixelsPerUnit?: number;
    /** AI (spec.ai): the models' prices. */
    ai?: {
      models?: {
        pipeline: string;
        model_id: string;
        price_per_unit?: number;
        pixels_per_unit?: number;
        currency?: string;
      }[];
    };
  };
  status?: {
    conditions?: { type: string; status: string; reason?: string }[];
    serviceAddr?: string;
    pricePerUnit?: string;
    pixelsPerUnit?: number;
    /** Where status.pricePerUnit comes from (absent: written before the field existed, advertised). */
    priceSource?: "advertised" | "configured";
    /** AI (spec.ai): the models its runners serve, and its live apps (spec.ai.live). */
    ai?: {
      models?: { pipeline: string; modelId: string; ready: boolean }[];
      live?: { app: string; healthy: number; desired: number }[];
    };
  };
}

/**
 * How the gateway reaches an orchestrator: its advertised service address (in a cluster: the
 * pod's DNS name or the public address), or its pod's IP (the embedded default: fake pods live on
 * loopback IPs and there is no cluster DNS).
 */
export type AddressMode = "service" | { podAddress: (orchestrator: string) => string | undefined };

export interface LeftOut {
  name: string;
  reason: string;
}

export interface Pool {
  selected: number;
  given: GivenOrchestrator[];
  leftOut: LeftOut[];
}

/** An orchestrator's price as the pool knows it: what it quoted the gateway, what its node advertised, else its spec. */
export interface KnownPrice {
  pricePerUnit?: string;
  pixelsPerUnit: number;
  /**
   * quoted: its answer to this gateway, as the gateway's node lists it; advertised: its answer to
   * the controller (both with the ticket overhead); configured: its spec's.
   */
  source: "quoted" | "advertised" | "configured";
}

/** On chain: the quotes the gateway's node lists, and the status so far (when each quote was first read). */
export interface PoolPrices {
  quotes?: readonly Quote[] | undefined;
  previous?: readonly GivenOrchestrator[] | undefined;
  /** RFC 3339, to the second. */
  now?: string;
}

/** Whether the cap reaches a price; undefined when the two cannot be compared. */
export type PriceCheck = (name: string, price: KnownPrice) => boolean | undefined;

export function orchestratorPool(
  selector: LabelSelector,
  orchestrators: readonly OrchestratorView[],
  addressing: AddressMode,
  priceCheck: PriceCheck,
  prices: PoolPrices = {},
): Pool {
  const selected = orchestrators
    .filter((o) => selectorMatches(selector, o.metadata?.labels))
    .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  const pool: Pool = { selected: selected.length, given: [], leftOut: [] };
  for (const o of selected) {
    const name = o.metadata?.name ?? "";
    const ready = o.status?.conditions?.find((c) => c.type === "Ready");
    if (ready?.status !== "True") {
      pool.leftOut.push({
        name,
        reason: `not Ready (${ready ? (ready.reason ?? ready.status) : "no status yet"})`,
      });
      continue;
    }
    const address = addressing === "service" ? o.status?.serviceAddr : addressing.podAddress(name);
    if (!address) {
      pool.leftOut.push({ name, reason: "no address yet" });
      continue;
    }
    const quote = prices.quotes
      ? quoteFor(
          { ethAddress: o.spec?.ethAcctAddr, serviceAddr: o.status?.serviceAddr, givenAddress: address },
          prices.quotes,
        )
      : undefined;
    const price = priceOf(o, quote);
    const compatible = priceCheck(name, price);
    const capabilities = capabilitiesOf(o);
    pool.given.push({
      name,
      address,
      ...(price.pricePerUnit !== undefined
        ? { pricePerUnit: price.pricePerUnit, pixelsPerUnit: price.pixelsPerUnit, priceSource: price.source }
        : {}),
      ...(quote ? { quotedAt: quotedAt(name, quote, prices) } : {}),
      ...(compatible !== undefined ? { priceCompatible: compatible } : {}),
      ...(capabilities.length ? { capabilities } : {}),
    });
  }
  return pool;
}

/**
 * What an orchestrator serves now in the SDK's discovery words (`<pipeline>/<model>`,
 * livepeer_gateway capabilities_to_query): ready models, live apps with a healthy runner.
 */
export function capabilitiesOf(o: OrchestratorView): string[] {
  const models = (o.status?.ai?.models ?? []).filter((m) => m.ready).map((m) => `${m.pipeline}/${m.modelId}`);
  const live = (o.status?.ai?.live ?? []).filter((a) => a.healthy > 0).map((a) => a.app);
  return [...new Set([...models, ...live])].slice(0, 64);
}

/** The price it quoted this gateway, else the one its node advertised, else what its spec asks for. */
export function priceOf(o: OrchestratorView, quote?: Quote): KnownPrice {
  if (quote)
    return { pricePerUnit: quote.pricePerUnit, pixelsPerUnit: quote.pixelsPerUnit, source: "quoted" };
  if (o.status?.pricePerUnit !== undefined && o.status.priceSource !== "configured") {
    return {
      pricePerUnit: o.status.pricePerUnit,
      pixelsPerUnit: o.status.pixelsPerUnit ?? 1,
      source: "advertised",
    };
  }
  return {
    ...(o.spec?.pricePerUnit !== undefined ? { pricePerUnit: o.spec.pricePerUnit } : {}),
    pixelsPerUnit: o.spec?.pixelsPerUnit ?? 1,
    source: "configured",
  };
}

/** When this quote was first read: kept from the status while the quoted price stays the same. */
function quotedAt(name: string, quote: Quote, prices: PoolPrices): string {
  const before = prices.previous?.find((g) => g.name === name);
  const same =
    before?.quotedAt !== undefined &&
    before.priceSource === "quoted" &&
    before.pricePerUnit === quote.pricePerUnit &&
    before.pixelsPerUnit === quote.pixelsPerUnit;
  return same ? before.quotedAt! : (prices.now ?? new Date().toISOString().replace(/\.\d+Z$/, "Z"));
}
