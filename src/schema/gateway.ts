// The Gateway resource: a go-livepeer gateway that finds the cluster's orchestrators and pays them.
import { z } from "zod";
import { chainFields, chainRules } from "./chain.ts";
import { withRules } from "./cross-field-rule.ts";
import { customResourceSchema, type Stored } from "./custom-resource.ts";
import { FundingSpecSchema, FundingStatusSchema } from "./duties.ts";
import { objectName, SecretKeySchema } from "./kubernetes-fields.ts";
import { priceSchema } from "./price.ts";
import { RolloutStatusSchema, rolloutField } from "./rollout.ts";
import { commonStatusFields, statusFacts } from "./status.ts";
import { serviceSpecSchema, storageImmutable, workloadFields } from "./workload.ts";

export const GATEWAY_HTTP_PORT = 8935;
export const GATEWAY_RTMP_PORT = 1935;

export const LabelSelectorRequirementSchema = z
  .strictObject({
    key: z.string().min(1).max(317).describe("Label key, for example livepeer.org/region."),
    operator: z
      .enum(["In", "NotIn", "Exists", "DoesNotExist"])
      .describe("In, NotIn (values must be non-empty), Exists or DoesNotExist (values must be empty)."),
    values: z.array(z.string().max(63)).max(64).optional().describe("Label values for In and NotIn."),
  })
  .describe("One label requirement.");

export const LabelSelectorSchema = z
  .strictObject({
    matchLabels: z
      .record(z.string().min(1).max(317), z.string().max(63))
      .optional()
      .describe("Labels an Orchestrator must have, for example {livepeer.org/pool: main}."),
    matchExpressions: z
      .array(LabelSelectorRequirementSchema)
      .max(32)
      .optional()
      .describe("Label requirements an Orchestrator must meet (all of them)."),
  })
  .describe(
    "Orchestrators in this namespace whose labels match; {} selects every Orchestrator in the namespace.",
  )
  .meta({ "x-kubernetes-map-type": "atomic" });

const OrchestratorsSourceBase = z
  .strictObject({
    selector: LabelSelectorSchema.optional(),
    addresses: z
      .array(
        z
          .string()
          .min(1)
          .max(512)
          .describe("host:port or https://host:port of an orchestrator, for example orch.example.com:8935."),
      )
      .min(1)
      .max(256)
      .optional()
      .describe("Fixed orchestrator addresses (-orchAddr), for example [orch.example.com:8935]."),
    discovery: z
      .enum(["onchain"])
      .optional()
      .describe(
        "onchain: discover orchestrators through the protocol's registry (needs a network other than offchain).",
      ),
  })
  .describe(
    "Where the gateway finds orchestrators: exactly one of selector (Orchestrator resources by label), addresses, or discovery: onchain.",
  );

const ORCHESTRATORS_EXACTLY_ONE =
  "exactly one of orchestrators.selector, orchestrators.addresses or orchestrators.discovery must be set, for example selector: {matchLabels: {livepeer.org/pool: main}}";

export const OrchestratorsSourceSchema = withRules(OrchestratorsSourceBase, [
  {
    rule: "(has(self.selector) ? 1 : 0) + (has(self.addresses) ? 1 : 0) + (has(self.discovery) ? 1 : 0) == 1",
    reason: "FieldValueInvalid",
    message: ORCHESTRATORS_EXACTLY_ONE,
    messageExpression:
      '(has(self.selector) || has(self.addresses) || has(self.discovery) ? "orchestrators sets more than one of selector, addresses and discovery" : "orchestrators sets none of selector, addresses and discovery") + ": set exactly one, for example selector: {matchLabels: {livepeer.org/pool: main}}"',
    holds: (o) => [o.selector, o.addresses, o.discovery].filter((v) => v !== undefined).length === 1,
  },
]);

export const MaxPriceForCapabilitySchema = z
  .strictObject({
    pipeline: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      .describe("AI pipeline the cap applies to, for example text-to-image."),
    modelId: z
      .string()
      .max(256)
      .optional()
      .describe(
        "Model id (<org>/<model>) the cap applies to, for example stabilityai/sd-turbo. Absent: every model of the pipeline.",
      ),
    maxPricePerUnit: priceSchema("maxPricePerUnit").describe(
      'Most the gateway pays per pixelsPerUnit units: wei ("1000") or with a currency suffix ("0.01USD").',
    ),
    pixelsPerUnit: z.int().min(1).default(1).describe("How many units maxPricePerUnit buys. Default 1."),
  })
  .describe("A price cap for one AI capability.");

// AI (spec.ai): what the gateway is asked to serve and, on chain, where it finds AI orchestrators.
export const GatewayAiSpecSchema = z
  .strictObject({
    pipelines: z
      .array(
        z
          .strictObject({
            pipeline: z
              .string()
              .min(1)
              .max(64)
              .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/)
              .describe("An AI pipeline the gateway serves, for example text-to-image."),
            modelId: z
              .string()
              .max(256)
              .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/, {
                error: 'ai.pipelines[].modelId must be "<org>/<model>", for example stabilityai/sd-turbo',
              })
              .optional()
              .describe("The model, <org>/<model> (for example stabilityai/sd-turbo). Absent: any model."),
          })
          .describe("One pipeline (and model) the gateway is expected to serve."),
      )
      .max(64)
      .optional()
      .describe(
        "AI pipelines the gateway is expected to serve besides those it caps in maxPricePerCapability: the operator warns (NoAICapableOrchestrator) when no orchestrator it is given serves one.",
      ),
    liveApps: z
      .array(
        z
          .string()
          .min(1)
          .max(40)
          .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, {
            error:
              "ai.liveApps[] must be a live app id (lower-case letters, digits, dashes), for example streamdiffusion",
          }),
      )
      .max(16)
      .optional()
      .describe(
        "Live apps (live-video-to-video/<id>) the gateway is expected to serve, for example [streamdiffusion]: the operator warns (NoLiveCapableOrchestrator) when no orchestrator it is given offers one with a healthy runner.",
      ),
    serviceRegistry: z
      .boolean()
      .optional()
      .describe(
        "On chain: discover AI orchestrators through the AI subnet's ServiceRegistry (-aiServiceRegistry). Needs a network other than offchain.",
      ),
  })
  .describe("AI on this gateway.");

export const IngestSpecSchema = z
  .strictObject({
    rtmp: z
      .strictObject({
        enabled: z.boolean().default(true).describe("Accept RTMP streams. Default true."),
        port: z
          .int()
          .min(1)
          .max(65535)
          .default(GATEWAY_RTMP_PORT)
          .describe(`RTMP port (-rtmpAddr), exposed on the Service. Default ${GATEWAY_RTMP_PORT}.`),
      })
      .prefault({})
      .describe("RTMP ingest (video only)."),
    http: z
      .boolean()
      .default(true)
      .describe("Accept HTTP ingest and AI requests on the HTTP port (-httpIngest). Default true."),
  })
  .describe("How streams and requests come in.");

export const StreamEventsSpecSchema = withRules(
  z
    .strictObject({
      enabled: z
        .boolean()
        .default(false)
        .describe(
          "Send stream.started and stream.idle events of this gateway's streams to the tenant's webhooks. Default false.",
        ),
      userId: z
        .string()
        .max(256)
        .optional()
        .describe("The user whose webhooks receive the events. Required when enabled."),
      projectId: z
        .string()
        .max(256)
        .optional()
        .describe("The project whose webhooks receive the events. Absent: the user's default project."),
    })
    .describe("Stream events from this gateway to the webhooks of one tenant."),
  [
    {
      rule: "!has(self.enabled) || !self.enabled || has(self.userId)",
      fieldPath: ".userId",
      reason: "FieldValueRequired",
      message:
        "streamEvents.userId is required when streamEvents.enabled is true: name the user whose webhooks receive the events",
      messageExpression:
        '"streamEvents.enabled is true but streamEvents.userId is not set: name the user whose webhooks receive the events, for example userId: user-123"',
      holds: (s) => !s.enabled || s.userId !== undefined,
    },
  ],
);

export const GatewayRemoteSignerSchema = z
  .strictObject({
    name: objectName("RemoteSigner").describe(
      "The RemoteSigner in this namespace that signs and pays for this gateway, for example signer-a.",
    ),
    headersSecretRef: z
      .strictObject({
        name: objectName("Secret").describe(
          "Name of the Secret in this namespace, for example gateway-a-signer.",
        ),
        key: SecretKeySchema.describe("Key in the Secret holding the headers, for example headers."),
      })
      .optional()
      .describe(
        "The Secret key whose value is the headers the gateway sends the signer (-remoteSignerHeaders, 'key:value,key2:value2'), for example Authorization:Bearer <tenant token>: a tenant token never sits in the spec.",
      ),
  })
  .describe(
    "Keyless: the gateway runs off chain and a RemoteSigner signs and pays for it (-remoteSignerUrl). Excludes network, keystoreSecret, the other chain fields and funding, which are the signer's.",
  );

const GatewaySpecBase = z
  .strictObject({
    ...chainFields,
    remoteSigner: GatewayRemoteSignerSchema.optional(),
    orchestrators: OrchestratorsSourceSchema,
    maxPricePerUnit: priceSchema("maxPricePerUnit")
      .optional()
      .describe(
        'Most the gateway pays per pixelsPerUnit pixels (-maxPricePerUnit): wei ("300") or with a currency suffix ("0.5USD"); "0" or absent: any price.',
      ),
    pixelsPerUnit: z
      .int()
      .min(1)
      .default(1)
      .describe("How many pixels maxPricePerUnit buys (-pixelsPerUnit). Integer >= 1, default 1."),
    maxPricePerCapability: z
      .array(MaxPriceForCapabilitySchema)
      .max(64)
      .optional()
      .describe("Price caps for AI capabilities (-maxPricePerCapability)."),
    // AI (spec.ai)
    ai: GatewayAiSpecSchema.optional(),
    ingest: IngestSpecSchema.prefault({}),
    maxSessions: z
      .int()
      .min(1, { error: "maxSessions must be 1 or more: leave it out for the node's default (10)" })
      .max(100000)
      .optional()
      .describe(
        "Most concurrent streams the gateway accepts (-maxSessions). Absent: the node's default, 10.",
      ),
    streamEvents: StreamEventsSpecSchema.optional(),
    funding: FundingSpecSchema.optional(),
    service: serviceSpecSchema(GATEWAY_HTTP_PORT, "HTTP ingest and AI requests").prefault({}),
    ...workloadFields,
    ...rolloutField,
  })
  .describe("The desired gateway.");

export const GatewaySpecSchema = withRules(
  GatewaySpecBase,
  [
    ...chainRules,
    {
      rule: "!has(self.remoteSigner) || (self.network == 'offchain' && !has(self.keystoreSecret) && !has(self.ethUrl) && !has(self.ethAcctAddr) && !has(self.ethController) && !has(self.devnet) && !has(self.funding))",
      fieldPath: ".remoteSigner",
      reason: "FieldValueForbidden",
      message:
        "remoteSigner and the chain fields are mutually exclusive: the signer holds the key and pays, so remove network, keystoreSecret, ethUrl, ethAcctAddr, ethController, devnet and funding from the Gateway (set them on the RemoteSigner), or remove remoteSigner",
      messageExpression:
        '"remoteSigner names " + self.remoteSigner.name + " but the Gateway also sets chain fields (network " + self.network + (has(self.keystoreSecret) ? ", keystoreSecret" : "") + (has(self.funding) ? ", funding" : "") + "): the signer holds the key and pays, so remove network, keystoreSecret, ethUrl, ethAcctAddr, ethController, devnet and funding from the Gateway (set them on the RemoteSigner " + self.remoteSigner.name + "), or remove remoteSigner"',
      holds: (s) =>
        s.remoteSigner === undefined ||
        (s.network === "offchain" &&
          s.keystoreSecret === undefined &&
          s.ethUrl === undefined &&
          s.ethAcctAddr === undefined &&
          s.ethController === undefined &&
          s.devnet === undefined &&
          s.funding === undefined),
    },
    {
      rule: "!has(self.orchestrators.discovery) || self.network != 'offchain'",
      fieldPath: ".orchestrators.discovery",
      reason: "FieldValueInvalid",
      message:
        "orchestrators.discovery: onchain needs a chain: set network (and keystoreSecret), or list orchestrators with selector or addresses",
      messageExpression:
        '"orchestrators.discovery: " + self.orchestrators.discovery + " needs a chain but network is offchain: set network (and keystoreSecret), or list orchestrators with selector or addresses"',
      holds: (s) => s.orchestrators.discovery === undefined || s.network !== "offchain",
    },
    // AI (spec.ai)
    {
      rule: "!has(self.ai) || !has(self.ai.serviceRegistry) || !self.ai.serviceRegistry || self.network != 'offchain'",
      fieldPath: ".ai.serviceRegistry",
      reason: "FieldValueInvalid",
      message:
        "ai.serviceRegistry reads the AI subnet's registry on chain: set network (and keystoreSecret), or remove it and select AI Orchestrators with orchestrators.selector",
      messageExpression:
        '"ai.serviceRegistry reads the AI subnet\'s registry on chain but network is offchain: set network (and keystoreSecret), or remove it and select AI Orchestrators with orchestrators.selector"',
      holds: (s) => !s.ai?.serviceRegistry || s.network !== "offchain",
    },
  ],
  [storageImmutable],
);

export const GivenOrchestratorSchema = z
  .strictObject({
    name: z.string().max(253).describe("The Orchestrator resource in this namespace."),
    address: z
      .string()
      .max(512)
      .describe(
        "The address the gateway was given for it, for example rtx3090-0.rtx3090-pods.video.svc.cluster.local:8935.",
      ),
    pricePerUnit: z
      .string()
      .max(96)
      .optional()
      .describe(
        "Its price per pixelsPerUnit pixels, from where priceSource says: wei, or with a currency suffix.",
      ),
    pixelsPerUnit: z.int().min(1).optional().describe("How many pixels pricePerUnit buys."),
    priceSource: z
      .enum(["quoted", "advertised", "configured"])
      .optional()
      .describe(
        "Where pricePerUnit comes from: quoted (on chain: what it quoted this gateway, as the gateway's node lists it at /getNetworkCapabilities; ticket overhead included), advertised (its GetOrchestrator answer to the controller), or configured (its spec; the node adds the ticket overhead with autoAdjustPrice).",
      ),
    quotedAt: z
      .string()
      .max(64)
      .optional()
      .describe(
        "When the controller first read this quote from the gateway's node (RFC 3339; kept while the quoted price stays the same). The node asks its orchestrators again every 25 minutes (from go-livepeer 0.8.10: -liveAICapReportInterval).",
      ),
    priceCompatible: z
      .boolean()
      .optional()
      .describe(
        "Whether the gateway's cap reaches that price; absent when the two cannot be compared, and off chain, where orchestrators quote no price and the gateway applies no cap.",
      ),
    capabilities: z
      .array(z.string().max(320))
      .max(64)
      .optional()
      .describe(
        "What it serves now, as the SDK's discovery asks (caps=<pipeline>/<model>): its ready AI models and its live apps with a healthy runner, for example live-video-to-video/streamdiffusion. The discovery hook filters on it.",
      ),
  })
  .describe("An orchestrator the gateway was given by the operator's discovery hook.");

export const GatewaySignerStatusSchema = z
  .strictObject({
    name: z.string().max(253).describe("The RemoteSigner that pays for this gateway."),
    address: z
      .string()
      .max(42)
      .optional()
      .describe("Its Ethereum address (the account that pays), as the signer's status says."),
    ready: z.boolean().describe("Whether the signer is Ready."),
    funded: z.boolean().describe("Whether the signer is Funded (deposit and reserve above zero)."),
  })
  .describe("Keyless gateways: the RemoteSigner that pays and whether it can.");

export const GatewayStatusSchema = z
  .strictObject({
    ...commonStatusFields,
    remoteSigner: GatewaySignerStatusSchema.optional(),
    orchestrators: z
      .array(GivenOrchestratorSchema)
      .max(1024)
      .optional()
      .describe("What the gateway was given: the selected Orchestrators that are Ready, with their prices."),
    orchestratorCount: z.int().min(0).optional().describe("How many orchestrators the gateway was given."),
    hookTokenDigest: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional()
      .describe(
        "SHA-256 (hex) of the token in the gateway's node-hooks Secret: the API server checks the node's discovery calls against it.",
      ),
    maxSessions: statusFacts.maxSessions,
    node: statusFacts.node,
    serviceAddr: statusFacts.serviceAddr,
    deposit: statusFacts.deposit,
    reserve: statusFacts.reserve,
    balance: statusFacts.balance,
    funding: FundingStatusSchema.optional(),
    rollout: RolloutStatusSchema.optional(),
  })
  .describe("What the operator observed: conditions, diagnoses and facts.");

export const GatewaySchema = customResourceSchema("Gateway", GatewaySpecSchema, GatewayStatusSchema).describe(
  "A Livepeer gateway: takes in streams and AI requests and pays orchestrators to process them.",
);

export type GatewaySpec = z.infer<typeof GatewaySpecSchema>;
export type GatewayStatus = z.infer<typeof GatewayStatusSchema>;
export type Gateway = z.infer<typeof GatewaySchema>;
/** A Gateway as read from the cluster (see Stored). */
export type StoredGateway = Stored<GatewaySpec, GatewayStatus>;
export type OrchestratorsSource = z.infer<typeof OrchestratorsSourceSchema>;
export type LabelSelector = z.infer<typeof LabelSelectorSchema>;
export type GatewayRemoteSigner = z.infer<typeof GatewayRemoteSignerSchema>;
export type GatewaySignerStatus = z.infer<typeof GatewaySignerStatusSchema>;
export type GivenOrchestrator = z.infer<typeof GivenOrchestratorSchema>;
