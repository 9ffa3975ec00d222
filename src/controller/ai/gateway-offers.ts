// What a Gateway is configured to serve in AI (its capability caps and spec.ai.pipelines) against
// what the orchestrators it is given offer (their status.ai), pure. An orchestrator without the
// pipeline and model turns the job away silently (the spec's second silent behaviour): here it
// becomes the finding NoAICapableOrchestrator, naming what is missing and what to do.
import type { Finding } from "../../schema/finding.ts";

export interface AiAsk {
  pipeline: string;
  /** Absent: any model of the pipeline. */
  modelId?: string;
  /** Where the gateway's spec asks for it. */
  source: "maxPricePerCapability" | "ai.pipelines";
}

export interface OfferedModel {
  pipeline: string;
  modelId: string;
  ready: boolean;
}

export interface AiOffer {
  orchestrator: string;
  models: readonly OfferedModel[];
}

export interface AiCoverage {
  asks: AiAsk[];
  /** Per ask, the orchestrators whose runners serve it now. */
  servedBy: { ask: AiAsk; orchestrators: string[]; cold: string[] }[];
}

const describeAsk = (a: AiAsk) => `${a.pipeline}${a.modelId ? ` ${a.modelId}` : " (any model)"}`;

/** What the gateway asks for: one entry per pipeline/model, caps first. */
export function gatewayAiAsks(spec: {
  maxPricePerCapability?: readonly { pipeline: string; modelId?: string | undefined }[] | undefined;
  ai?: { pipelines?: readonly { pipeline: string; modelId?: string | undefined }[] | undefined } | undefined;
}): AiAsk[] {
  const asks: AiAsk[] = [];
  const add = (p: { pipeline: string; modelId?: string | undefined }, source: AiAsk["source"]) => {
    if (asks.some((a) => a.pipeline === p.pipeline && a.modelId === p.modelId)) return;
    asks.push({ pipeline: p.pipeline, ...(p.modelId ? { modelId: p.modelId } : {}), source });
  };
  for (const c of spec.maxPricePerCapability ?? []) add(c, "maxPricePerCapability");
  for (const p of spec.ai?.pipelines ?? []) add(p, "ai.pipelines");
  return asks;
}

export function aiCoverage(asks: readonly AiAsk[], offers: readonly AiOffer[]): AiCoverage {
  const matches = (a: AiAsk, m: OfferedModel) =>
    m.pipeline === a.pipeline && (!a.modelId || m.modelId === a.modelId);
  return {
    asks: [...asks],
    servedBy: asks.map((ask) => ({
      ask,
      orchestrators: offers
        .filter((o) => o.models.some((m) => matches(ask, m) && m.ready))
        .map((o) => o.orchestrator),
      cold: offers
        .filter(
          (o) =>
            o.models.some((m) => matches(ask, m) && !m.ready) &&
            !o.models.some((m) => matches(ask, m) && m.ready),
        )
        .map((o) => o.orchestrator),
    })),
  };
}

/**
 * A warning, not an error: the gateway still takes video (Ready means serving, and a dual gateway
 * serves), and an AI orchestrator that is only cold will serve in a minute or two.
 */
export function noAiCapableOrchestrator(
  coverage: AiCoverage,
  given: number,
): (Omit<Finding, "since"> & { since?: string }) | undefined {
  const missing = coverage.servedBy.filter((s) => s.orchestrators.length === 0);
  if (missing.length === 0) return undefined;
  const what = missing
    .map((s) => {
      const cold = s.cold.length ? ` (cold: ${s.cold.join(", ")} still loading it)` : "";
      return `${describeAsk(s.ask)} from spec.${s.ask.source}${cold}`;
    })
    .join("; ");
  return {
    id: "NoAICapableOrchestrator",
    severity: "warning",
    message: `none of the ${given} orchestrator(s) this gateway is given serves ${what}: the node turns such AI requests away without an error. Add an Orchestrator with that model in spec.ai.models to the gateway's selector, or remove the cap/pipeline from the gateway`,
  };
}

/** One orchestrator's live apps as its status reports them (status.ai.live). */
export interface LiveOffer {
  orchestrator: string;
  apps: readonly { app: string; healthy: number; desired: number }[];
}

/**
 * Live apps the gateway declares (spec.ai.liveApps) that no orchestrator it is given offers with a
 * healthy runner: the SDK's discovery with caps=live-video-to-video/<id> finds none there, and a
 * session is refused. A warning: runners warming up will serve soon, and the gateway takes other work.
 */
export function noLiveCapableOrchestrator(
  liveApps: readonly string[],
  offers: readonly LiveOffer[],
  given: number,
): (Omit<Finding, "since"> & { since?: string }) | undefined {
  const missing = liveApps
    .map((id) => {
      const app = `live-video-to-video/${id}`;
      const healthy = offers.filter((o) => o.apps.some((a) => a.app === app && a.healthy > 0));
      const warming = offers.filter((o) => o.apps.some((a) => a.app === app && a.healthy === 0));
      return { app, healthy, warming };
    })
    .filter((m) => m.healthy.length === 0);
  if (missing.length === 0) return undefined;
  const what = missing
    .map((m) =>
      m.warming.length
        ? `${m.app} (declared by ${m.warming.map((o) => o.orchestrator).join(", ")}, no healthy runner yet)`
        : m.app,
    )
    .join("; ");
  return {
    id: "NoLiveCapableOrchestrator",
    severity: "warning",
    message: `none of the ${given} orchestrator(s) this gateway is given offers ${what}: live sessions for it are refused. Add an Orchestrator with the app in spec.ai.live to the gateway's selector, wait for its runners (status.ai.live says why they are not healthy), or remove the app from spec.ai.liveApps`,
  };
}
