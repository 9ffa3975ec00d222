// Everything a Gateway should have, computed from what was observed (pure: tests compare built
// objects without a cluster): the node's pod, config and Services from the node-pod builder, the
// orchestrators it is given and whether its price cap reaches them, and what holds the rollout.
import type { V1EnvVar } from "@kubernetes/client-node";
import type { FlagProblem } from "../../node/config/index.ts";
import {
  capPerPixel,
  comparePrice,
  type GatewayPriceCap,
  type OrchestratorPrice,
  type PriceCompatibility,
  PriceInputError,
  priceCompatibility,
} from "../../node/pricing/index.ts";
import type { Finding } from "../../schema/finding.ts";
import type { StoredGateway } from "../../schema/gateway.ts";
import {
  aiCoverage,
  gatewayAiAsks,
  noAiCapableOrchestrator,
  noLiveCapableOrchestrator,
} from "../ai/gateway-offers.ts";
import { aiPriceCapTooLow, type ModelPrice } from "../ai/gateway-prices.ts";
import type { DevnetResolution } from "../devnet/deployment-config-map.ts";
import { type LiveChange, liveChanges } from "../live/settings.ts";
import { buildNodePod, type NodePod } from "../node-pod/index.ts";
import { devnetHold, type Hold } from "../node-status/holds.ts";
import { keystoreSecretOf } from "../node-status/keystore.ts";
import { MAX_PRICE_PER_CAPABILITY_FILE, maxPricePerCapabilityFile } from "./flags.ts";
import { gatewayChildNames, HOOK_TOKEN_ANNOTATION, HOOKS_SECRET_KEYS } from "./names.ts";
import {
  type AddressMode,
  type KnownPrice,
  type OrchestratorView,
  orchestratorPool,
  type Pool,
} from "./pool.ts";
import { GATEWAY_LIVE, gatewayRole } from "./role.ts";

export interface GatewayPlanInput {
  gateway: StoredGateway;
  defaultImage: string;
  devnet?: DevnetResolution;
  /** The Orchestrators of the Gateway's namespace (for spec.orchestrators.selector). */
  orchestrators: readonly OrchestratorView[];
  addressing: AddressMode;
  /** Whether the controller knows the URL of the API server's node hooks. */
  hooksConfigured: boolean;
  /** The digest of the token in the gateway's hooks Secret, once that Secret exists. */
  hookTokenDigest?: string;
  /** The node's ConfigMap annotations before this reconcile (what its config file holds). */
  recorded?: Record<string, string>;
}

export interface GatewayPlan {
  node: NodePod;
  /** spec.orchestrators.selector: the node asks the operator for its orchestrators. */
  discovery: boolean;
  /** spec.streamEvents.enabled with the hooks configured: the node calls the operator's auth hook per stream. */
  streamEvents: boolean;
  pool?: Pool;
  price:
    | PriceCompatibility
    | { status: "True" | "Unknown"; reason: string; message: string; severity: "none" };
  holds: Hold[];
  problems: FlagProblem[];
  /** A new price cap or session limit for the running node, set live rather than by a restart. */
  liveChanges: LiveChange[];
  /**
   * AI: no orchestrator given serves a pipeline/model the gateway caps or is asked for; every one
   * serving a capped capability asks more than the cap.
   */
  aiFindings: (Omit<Finding, "since"> & { since?: string })[];
}

export function planGateway(input: GatewayPlanInput): GatewayPlan {
  const { gateway } = input;
  const { spec } = gateway;
  const name = gateway.metadata?.name ?? "";
  const namespace = gateway.metadata?.namespace ?? "default";
  const names = gatewayChildNames(name);
  const discovery = spec.orchestrators.selector !== undefined;
  const devnet: DevnetResolution = input.devnet ?? { state: "unused" };
  const capFile = maxPricePerCapabilityFile(spec);
  const streamEvents = input.hooksConfigured && spec.streamEvents?.enabled === true;
  const fromHooksSecret = (name: string, key: string): V1EnvVar => ({
    name,
    valueFrom: { secretKeyRef: { name: names.hooksSecret, key } },
  });
  // URLs with the token reach the node from its Secret, never its ConfigMap.
  const env: V1EnvVar[] = [
    ...(discovery ? [fromHooksSecret("LP_ORCHWEBHOOKURL", HOOKS_SECRET_KEYS.orchWebhookUrl)] : []),
    ...(streamEvents ? [fromHooksSecret("LP_AUTHWEBHOOKURL", HOOKS_SECRET_KEYS.authWebhookUrl)] : []),
  ];
  const podTemplate =
    env.length > 0 && input.hookTokenDigest
      ? {
          ...spec.podTemplate,
          annotations: { ...spec.podTemplate?.annotations, [HOOK_TOKEN_ANNOTATION]: input.hookTokenDigest },
        }
      : spec.podTemplate;
  const node = buildNodePod(gatewayRole(spec.ingest.rtmp.enabled), {
    name,
    namespace,
    instance: name,
    replicas: 1,
    image: spec.image ?? input.defaultImage,
    extraArgs: spec.extraArgs,
    facts: { spec, ...(devnet.state === "resolved" ? { devnet } : {}) },
    env,
    secrets: { keystore: keystoreSecretOf(gateway) },
    storage: spec.storage,
    podTemplate,
    service: {
      type: spec.service.type,
      ports: { http: spec.service.port, rtmp: spec.ingest.rtmp.port },
    },
    files: capFile ? { [MAX_PRICE_PER_CAPABILITY_FILE]: capFile } : {},
  });
  const cap: GatewayPriceCap = {
    maxPricePerUnit: spec.maxPricePerUnit ?? "0",
    pixelsPerUnit: spec.pixelsPerUnit,
  };
  const pool = discovery
    ? orchestratorPool(
        spec.orchestrators.selector ?? {},
        input.orchestrators,
        input.addressing,
        priceCheck(cap),
      )
    : undefined;
  const aiFindings = pool ? aiFindingsOf(spec, pool, input.orchestrators) : [];
  return {
    node,
    discovery,
    streamEvents,
    ...(pool ? { pool } : {}),
    aiFindings,
    price: pool
      ? priceCompatibility(
          cap,
          pool.given.flatMap((g) => offerOf(g.name, g)),
        )
      : staticPrice(spec),
    holds: holds(devnet, discovery, env.length > 0, input),
    problems: node.problems,
    liveChanges: liveChanges(GATEWAY_LIVE, node.flags, input.recorded, node.configMap.data ?? {}),
  };
}

/** AI: what the gateway caps or is asked for against the models the given orchestrators serve. */
function aiFindingsOf(spec: StoredGateway["spec"], pool: Pool, orchestrators: readonly OrchestratorView[]) {
  const asks = gatewayAiAsks(spec);
  const given = pool.given.flatMap((g) => orchestrators.filter((o) => o.metadata?.name === g.name));
  const liveApps = spec.ai?.liveApps ?? [];
  const live = liveApps.length
    ? noLiveCapableOrchestrator(
        liveApps,
        given.map((o) => ({ orchestrator: o.metadata?.name ?? "", apps: o.status?.ai?.live ?? [] })),
        pool.given.length,
      )
    : undefined;
  if (asks.length === 0) return live ? [live] : [];
  const offers = given.map((o) => ({
    orchestrator: o.metadata?.name ?? "",
    models: o.status?.ai?.models ?? [],
  }));
  // Prices of the models each serves now, as its spec sets them.
  const prices: ModelPrice[] = given.flatMap((o) =>
    (o.spec?.ai?.models ?? []).flatMap((m) =>
      m.price_per_unit !== undefined &&
      o.status?.ai?.models?.some((s) => s.ready && s.pipeline === m.pipeline && s.modelId === m.model_id)
        ? [
            {
              orchestrator: o.metadata?.name ?? "",
              pipeline: m.pipeline,
              modelId: m.model_id,
              pricePerUnit: `${m.price_per_unit}${m.currency ?? ""}`,
              pixelsPerUnit: m.pixels_per_unit ?? 1,
            },
          ]
        : [],
    ),
  );
  return [
    noAiCapableOrchestrator(aiCoverage(asks, offers), pool.given.length),
    aiPriceCapTooLow(spec.maxPricePerCapability ?? [], prices),
    live,
  ].filter((f) => f !== undefined);
}

/** The node refuses its cap? Then the whole comparison is off; the flag problem says why. */
function priceCheck(cap: GatewayPriceCap) {
  let limit: ReturnType<typeof capPerPixel> | undefined;
  try {
    limit = capPerPixel(cap);
  } catch (err) {
    if (!(err instanceof PriceInputError)) throw err;
  }
  return (name: string, price: KnownPrice): boolean | undefined => {
    const [offer] = offerOf(name, price);
    if (!limit || !offer) return undefined;
    const v = comparePrice(limit, offer).verdict;
    return v === "unknown" ? undefined : v === "within";
  };
}

function offerOf(
  name: string,
  p: { pricePerUnit?: string; pixelsPerUnit?: number; source?: KnownPrice["source"] },
): OrchestratorPrice[] {
  if (p.pricePerUnit === undefined) return [];
  return [
    {
      name,
      pricePerUnit: p.pricePerUnit,
      pixelsPerUnit: p.pixelsPerUnit ?? 1,
      source: p.source ?? "advertised",
    },
  ];
}

function staticPrice(spec: StoredGateway["spec"]): GatewayPlan["price"] {
  if (spec.orchestrators.discovery === "onchain") {
    return {
      status: "Unknown",
      reason: "OnchainDiscovery",
      message:
        "the gateway discovers orchestrators on chain: the node compares its cap with their prices itself",
      severity: "none",
    };
  }
  return {
    status: "Unknown",
    reason: "PricesNotKnown",
    message:
      "orchestrators are given by address (spec.orchestrators.addresses): their prices are not known to the operator; select Orchestrator resources to have the cap checked",
    severity: "none",
  };
}

function holds(
  devnet: DevnetResolution,
  discovery: boolean,
  hooksUsed: boolean,
  input: GatewayPlanInput,
): Hold[] {
  const out: Hold[] = [];
  const devnetHeld = devnetHold(devnet);
  if (devnetHeld) out.push(devnetHeld);
  if (discovery && !input.hooksConfigured) {
    out.push({
      reason: "DiscoveryUnavailable",
      message:
        "spec.orchestrators.selector needs the operator's discovery hook, but the controller was started without --node-hooks-url (the Helm chart sets it when api.enabled is true): enable the API, or list orchestrators in spec.orchestrators.addresses",
      blocksRollout: true,
    });
  } else if (hooksUsed && !input.hookTokenDigest) {
    out.push({
      reason: "HooksSecretPending",
      message: `waiting for the Secret ${gatewayChildNames(input.gateway.metadata?.name ?? "").hooksSecret} that carries the node's hook URLs`,
      blocksRollout: true,
    });
  }
  return out;
}
