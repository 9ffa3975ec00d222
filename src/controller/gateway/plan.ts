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
import type { Quote } from "./quotes.ts";
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
  /** spec.remoteSigner: the RemoteSigner as observed (absent: not found) and the URL it answers at. */
  signer?: SignerSeen;
  /**
   * On chain: what the orchestrators quoted this gateway, as its node lists them (the doctor's
   * read of /getNetworkCapabilities); absent: not read (yet).
   */
  quotes?: readonly Quote[] | undefined;
  /** RFC 3339, to the second (when a quote is first read). */
  now?: string;
}

/** A keyless gateway's signer as the Gateway controller sees it. */
export interface SignerSeen {
  found: boolean;
  ready: boolean;
  funded: boolean;
  /** Ready's reason when not Ready. */
  reason?: string;
  address?: string;
  /** Where the gateway reaches it (absent: nowhere yet, e.g. no Ready pod without cluster DNS). */
  url?: string;
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
  const headers = spec.remoteSigner?.headersSecretRef;
  const env: V1EnvVar[] = [
    ...(discovery ? [fromHooksSecret("LP_ORCHWEBHOOKURL", HOOKS_SECRET_KEYS.orchWebhookUrl)] : []),
    ...(streamEvents ? [fromHooksSecret("LP_AUTHWEBHOOKURL", HOOKS_SECRET_KEYS.authWebhookUrl)] : []),
  ];
  const hookEnv = env.length > 0;
  // The signer headers carry a tenant token: from the user's Secret, never the ConfigMap.
  if (headers) {
    env.push({
      name: "LP_REMOTESIGNERHEADERS",
      valueFrom: { secretKeyRef: { name: headers.name, key: headers.key } },
    });
  }
  const podTemplate =
    hookEnv && input.hookTokenDigest
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
    facts: {
      spec,
      ...(devnet.state === "resolved" ? { devnet } : {}),
      ...(input.signer?.url ? { remoteSignerUrl: input.signer.url } : {}),
    },
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
  const onChain = (spec.network ?? "offchain") !== "offchain";
  const pool = discovery
    ? orchestratorPool(
        spec.orchestrators.selector ?? {},
        input.orchestrators,
        input.addressing,
        onChain ? priceCheck(cap) : () => undefined,
        {
          quotes: onChain ? input.quotes : undefined,
          previous: gateway.status?.orchestrators,
          ...(input.now ? { now: input.now } : {}),
        },
      )
    : undefined;
  const aiFindings = pool ? aiFindingsOf(spec, pool, input.orchestrators, onChain) : [];
  return {
    node,
    discovery,
    streamEvents,
    ...(pool ? { pool } : {}),
    aiFindings,
    price: pool
      ? onChain || pool.given.length === 0
        ? priceCompatibility(
            cap,
            pool.given.flatMap((g) => offerOf(g.name, g)),
          )
        : offchainPrice(pool)
      : staticPrice(spec),
    holds: holds(devnet, discovery, hookEnv, input),
    problems: node.problems,
    liveChanges: liveChanges(GATEWAY_LIVE, node.flags, input.recorded, node.configMap.data ?? {}),
  };
}

/** AI: what the gateway caps or is asked for against the models the given orchestrators serve. */
function aiFindingsOf(
  spec: StoredGateway["spec"],
  pool: Pool,
  orchestrators: readonly OrchestratorView[],
  onChain: boolean,
) {
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
    // Off chain orchestrators quote no capability price and the caps decide nothing.
    onChain ? aiPriceCapTooLow(spec.maxPricePerCapability ?? [], prices) : undefined,
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
  p: {
    pricePerUnit?: string;
    pixelsPerUnit?: number;
    source?: KnownPrice["source"];
    priceSource?: KnownPrice["source"];
  },
): OrchestratorPrice[] {
  if (p.pricePerUnit === undefined) return [];
  // A quote is the node's own answer, as an advertised price is: the ticket overhead is in it.
  const source = p.source ?? p.priceSource ?? "advertised";
  return [
    {
      name,
      pricePerUnit: p.pricePerUnit,
      pixelsPerUnit: p.pixelsPerUnit ?? 1,
      source: source === "configured" ? "configured" : "advertised",
    },
  ];
}

/**
 * Off chain an orchestrator quotes no price (it has no ticket recipient) and the gateway selects
 * without one (server/selection.go: off chain, orchestrators in order; filterByMaxPrice with no
 * prices keeps them all): the cap decides nothing, so nothing is compared.
 */
function offchainPrice(pool: Pool): GatewayPlan["price"] {
  return {
    status: "True",
    reason: "OffchainNoPrices",
    message: `off chain, orchestrators quote no price and the gateway applies no price cap: it uses all ${pool.given.length} it is given (${pool.given.map((g) => g.name).join(", ")})`,
    severity: "none",
  };
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
  const signerHeld = signerHold(input);
  if (signerHeld) out.push(signerHeld);
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

/**
 * A keyless gateway whose signer is missing, not Ready or not reachable yet holds its rollout: a
 * go-livepeer gateway with -remoteSignerUrl exits at start when the signer does not answer.
 */
export function signerHold(input: Pick<GatewayPlanInput, "gateway" | "signer">): Hold | undefined {
  const ref = input.gateway.spec.remoteSigner;
  if (!ref) return undefined;
  const ns = input.gateway.metadata?.namespace ?? "default";
  const s = input.signer;
  if (!s?.found) {
    return {
      reason: "RemoteSignerNotFound",
      message: `spec.remoteSigner names RemoteSigner ${ref.name}, which does not exist in namespace ${ns}: create it (kubectl get remotesigners -n ${ns}) or name another; the gateway's pods are not created or changed until it is Ready`,
      blocksRollout: true,
    };
  }
  if (!s.ready || !s.url) {
    return {
      reason: "RemoteSignerNotReady",
      message: `RemoteSigner ${ref.name} is not Ready${s.reason ? ` (${s.reason})` : ""}: the gateway's pods are not created or changed until it is (kubectl describe remotesigner ${ref.name} -n ${ns})`,
      blocksRollout: true,
    };
  }
  return undefined;
}
