// Every flag go-livepeer's `livepeer` binary defines (cmd/livepeer/starter/flags.go plus the four
// its main() adds: -v, -j, -version, -config), as data. One table drives parsing (command line,
// LP_* environment, config file), rendering and validation. The node rejects any name not in its
// flag set, so a name missing here would make us reject a config file the node accepts: keep the
// table complete, not just the flags the operator renders.

/** Go's flag kinds as the node declares them (int64 counts as int; durations stay strings). */
export type FlagType = "bool" | "string" | "int" | "float" | "duration";

export type FlagGroup =
  | "role"
  | "network"
  | "discovery"
  | "transcoding"
  | "ai"
  | "live-ai"
  | "chain"
  | "pricing"
  | "metrics"
  | "storage"
  | "api"
  | "remote-signer"
  | "kafka"
  | "cli";

export interface FlagSpec {
  readonly type: FlagType;
  /** The node's default as it prints it (Go zero values included). */
  readonly default: string;
  readonly meaning: string;
  readonly group: FlagGroup;
  /** Secrets: never echo the value in messages or logs. */
  readonly sensitive?: true;
  /** Deprecated name and what to use instead. */
  readonly deprecated?: string;
  /** Another name for the same setting (the node binds both names to one variable). */
  readonly aliasOf?: string;
}

type Extra = Pick<FlagSpec, "sensitive" | "deprecated" | "aliasOf">;

const s = (meaning: string, group: FlagGroup, extra: Extra = {}, dflt = "") =>
  ({ type: "string", default: dflt, meaning, group, ...extra }) as const;
const b = (meaning: string, group: FlagGroup, dflt = false, extra: Extra = {}) =>
  ({ type: "bool", default: String(dflt), meaning, group, ...extra }) as const;
const i = (meaning: string, group: FlagGroup, dflt = 0) =>
  ({ type: "int", default: String(dflt), meaning, group }) as const;
const f = (meaning: string, group: FlagGroup, dflt: number) =>
  ({ type: "float", default: String(dflt), meaning, group }) as const;
const d = (meaning: string, group: FlagGroup, dflt: string) =>
  ({ type: "duration", default: dflt, meaning, group }) as const;

export const FLAG_TABLE = {
  // Roles
  gateway: b("run as a gateway: ingests video and AI requests and pays orchestrators", "role"),
  broadcaster: b("legacy name of -gateway, still accepted with a deprecation warning", "role", false, {
    deprecated: "gateway",
  }),
  orchestrator: b("run as an orchestrator: sells transcoding and AI inference to gateways", "role"),
  transcoder: b("transcode locally (with -orchestrator) or as a standalone transcoder", "role"),
  aiWorker: b("run an AI worker (with -orchestrator, or standalone)", "role"),
  redeemer: b("run a ticket redemption service", "role"),

  // Network and addresses
  network: s(
    "network to join: offchain, mainnet, arbitrum-one-mainnet, devnet ...",
    "network",
    {},
    "offchain",
  ),
  rtmpAddr: s("RTMP ingest bind address (gateway; default 127.0.0.1:1935)", "network"),
  cliAddr: s("CLI/status API bind address (default 127.0.0.1 and the role's port)", "network"),
  httpAddr: s(
    "HTTP API bind address (gateway default 127.0.0.1:9935; orchestrator :<service port>)",
    "network",
  ),
  serviceAddr: s("public host:port gateways use to reach this orchestrator", "network"),
  nodes: s("comma-separated instance URLs an orchestrator advertises", "network"),
  verifierUrl: s("URL of the verifier to use", "network"),
  verifierPath: s("path to the verifier's shared volume", "network"),
  localVerify: b("verify pixel counts and signatures locally", "network", true),
  httpIngest: b("accept HTTP ingest (and AI requests) on the -httpAddr port", "network", true),

  // Gateway discovery and selection
  orchAddr: s("comma-separated orchestrator addresses (https and port 8935 by default)", "discovery"),
  orchWebhookUrl: s("URL the gateway asks for its orchestrator list", "discovery"),
  extraNodes: i("extra nodes an orchestrator may advertise in its info response", "discovery"),
  orchBlocklist: s("comma-separated orchestrator addresses never used", "discovery"),
  orchMinLivepeerVersion: s("lowest orchestrator version the gateway selects", "discovery"),
  selectRandFreq: f("weight of chance in orchestrator selection", "discovery", 0.3),
  selectStakeWeight: f("weight of stake in orchestrator selection", "discovery", 0.7),
  selectPriceWeight: f("weight of price in orchestrator selection", "discovery", 0),
  selectPriceExpFactor: f("how much a small price difference matters in selection", "discovery", 100),
  orchPerfStatsUrl: s("URL of the orchestrator performance statistics", "discovery"),
  region: s("gateway region, used with -orchPerfStatsUrl", "discovery"),
  minPerfScore: f("lowest orchestrator performance score the gateway accepts", "discovery", 0),
  discoveryTimeout: d("how long discovery waits for orchestrator info", "discovery", "500ms"),
  gatewayHost: s("external host name of the gateway", "discovery"),

  // Pricing
  maxPricePerUnit: s(
    "gateway's maximum price per -pixelsPerUnit pixels (wei, or e.g. 0.5USD; 0 = any)",
    "pricing",
    {},
    "0",
  ),
  maxPricePerCapability: s("gateway's maximum AI prices: JSON or a path to a JSON file", "pricing"),
  ignoreMaxPriceIfNeeded: b("use orchestrators above the price cap when none is below it", "pricing"),
  pricePerUnit: s("orchestrator price per -pixelsPerUnit pixels (wei, or e.g. 0.5USD)", "pricing", {}, "0"),
  pixelsPerUnit: s("pixels per price unit (integer > 0)", "pricing", {}, "1"),
  priceFeedAddr: s(
    "Chainlink price feed used for currency prices",
    "pricing",
    {},
    "0x639Fe6ab55C921f74e7fac1ee960C0B6293ba612",
  ),
  autoAdjustPrice: b("adjust the price for ticket redemption overhead", "pricing", true),
  pricePerGateway: s("per-gateway prices: JSON or a path to a JSON file", "pricing"),
  pricePerBroadcaster: s("legacy name of -pricePerGateway", "pricing", { deprecated: "pricePerGateway" }),

  // Transcoding
  orchSecret: s(
    "secret shared by an orchestrator and its transcoders/AI workers, or a path to it",
    "transcoding",
    {
      sensitive: true,
    },
  ),
  transcodingOptions: s(
    "renditions for broadcast jobs, or a path to a JSON file",
    "transcoding",
    {},
    "P240p30fps16x9,P360p30fps16x9",
  ),
  maxAttempts: i("maximum transcode attempts per segment", "transcoding", 3),
  maxSessions: s(
    "concurrent session cap (integer > 0, or auto for an orchestrator with remote transcoders)",
    "transcoding",
    {},
    "10",
  ),
  currentManifest: b("expose the active manifest as /stream/current.m3u8", "transcoding"),
  nvidia: s("Nvidia GPU device ids to use (comma list, or all)", "transcoding"),
  netint: s("NetInt device GUIDs to use (comma list, or all)", "transcoding"),
  testTranscoder: b("run the GPU encode/decode test at startup", "transcoding", true),
  hevcDecoding: b("enable or disable HEVC decoding", "transcoding"),

  // AI
  aiServiceRegistry: b("use the AI service registry contract for discovery", "ai"),
  aiServerless: b("use a serverless AI worker", "ai"),
  useLiveRunners: b("use live runners for supported pipelines", "ai"),
  liveRunnerConfig: s("path to a JSON file of static live runners", "ai"),
  liveRunnerProxyUrl: s("public live runner proxy URL template", "ai"),
  aiModels: s("AI models to load: path to aiModels.json or JSON", "ai"),
  aiModelsDir: s("directory of AI model weights", "ai"),
  aiRunnerImage: s(
    "legacy AI runner image",
    "ai",
    { deprecated: "aiRunnerImageOverrides" },
    "livepeer/ai-runner:latest",
  ),
  aiVerboseLogs: b("verbose logs from AI runner containers", "ai"),
  aiRunnerImageOverrides: s("AI runner image overrides (JSON)", "ai"),
  aiProcessingRetryTimeout: d("how long to retry starting AI processing", "ai", "2s"),
  aiRunnerContainersPerGPU: i("AI runner containers per GPU", "ai", 1),
  aiMinRunnerVersion: s("minimum runner versions per pipeline (JSON)", "ai", {}, "[]"),

  // Live AI
  mediaMTXApiPassword: s("MediaMTX API password", "live-ai", { sensitive: true }),
  liveRunnerAddr: s("base URL live runners use to reach the node", "live-ai"),
  liveAITrickleHostForRunner: s("trickle host the AI runner uses", "live-ai"),
  liveAIAuthApiKey: s("API key for live AI authentication", "live-ai", { sensitive: true }),
  liveAIHeartbeatURL: s("live AI heartbeat URL", "live-ai"),
  liveAIHeartbeatHeaders: s("live AI heartbeat headers", "live-ai"),
  liveAIHeartbeatInterval: d("live AI heartbeat interval", "live-ai", "5s"),
  liveAIAuthWebhookUrl: s("live AI RTMP authentication webhook URL", "live-ai"),
  livePaymentInterval: d("live AI payment interval", "live-ai", "5s"),
  liveOutSegmentTimeout: d("live AI output segment timeout", "live-ai", "0s"),
  liveAISaveNSegments: i("live AI segments saved for debugging", "live-ai", 10),
  liveAICapRefreshModels: s("legacy live AI capacity refresh list", "live-ai", {
    deprecated: "liveAICapReportInterval",
  }),
  liveAICapReportInterval: d("live AI capacity report interval", "live-ai", "25m"),

  // Chain
  ethAcctAddr: s("account address (when the keystore holds several)", "chain"),
  ethPassword: s("keystore password, or a path to a file holding it (no trailing newline)", "chain", {
    sensitive: true,
  }),
  ethKeystorePath: s("keystore directory or key file (default <dataDir>/keystore)", "chain"),
  ethOrchAddr: s("address of an on-chain orchestrator this node receives tickets for", "chain"),
  ethUrl: s("layer-2 chain JSON-RPC URL (https for remote endpoints)", "chain"),
  transactionTimeout: d("how long to wait for a transaction to confirm", "chain", "5m"),
  maxTransactionReplacements: i("how often a pending transaction is replaced", "chain", 1),
  gasLimit: i("gas limit for transactions (0 = estimate)", "chain"),
  minGasPrice: i("minimum gas price in wei", "chain"),
  maxGasPrice: i("maximum gas price in wei (0 = none)", "chain"),
  ethController: s(
    "protocol Controller contract address (needed for networks without a built-in one)",
    "chain",
  ),
  initializeRound: b("initialize new rounds automatically", "chain"),
  initializeRoundMaxDelay: d("longest wait before initializing a round", "chain", "30s"),
  ticketEV: s("expected value of payment tickets", "chain", {}, "8000000000"),
  maxFaceValue: s("maximum ticket face value in wei", "chain", {}, "0"),
  maxTicketEV: s("gateway's maximum expected value per ticket", "chain", {}, "3000000000000"),
  maxTotalEV: s("gateway's maximum expected value per payment", "chain", {}, "20000000000000"),
  depositMultiplier: i("deposit multiplier for the maximum ticket face value", "chain", 1),
  blockPollingInterval: i("seconds between block polls", "chain", 5),
  redeemerAddr: s("URL of a ticket redemption service", "chain"),
  reward: b("call reward every round (default: when the account is a registered orchestrator)", "chain"),

  // Metrics and logging
  monitor: b("collect metrics and serve /metrics on the CLI port", "metrics"),
  metricsPerStream: b("group metrics per stream", "metrics"),
  metricsClientIP: b("expose client IPs in metrics", "metrics"),
  metadataQueueUri: s("message broker URI for operation metadata", "metrics"),
  metadataAmqpExchange: s("AMQP exchange for operation metadata", "metrics", {}, "lp_golivepeer_metadata"),
  metadataPublishTimeout: d("longest wait to publish a metadata event", "metrics", "1s"),
  kafkaBootstrapServers: s("Kafka bootstrap servers for gateway logs", "kafka"),
  kafkaUser: s("Kafka user", "kafka"),
  kafkaPassword: s("Kafka password", "kafka", { sensitive: true }),
  kafkaGatewayTopic: s("Kafka topic for gateway logs", "kafka"),

  // Storage
  dataDir: s("data directory (default ~/.lpData/<network>)", "storage"),
  datadir: s("legacy spelling of -dataDir", "storage", { deprecated: "dataDir", aliasOf: "dataDir" }),
  objectStore: s("URL of the primary object store", "storage"),
  recordStore: s("URL of the object store for recordings", "storage"),
  FVfailGsbucket: s("Cloud Storage bucket for segments failing fast verification", "storage"),
  FVfailGskey: s("key for -FVfailGsbucket", "storage", { sensitive: true }),

  // API and webhooks
  authWebhookUrl: s("URL the gateway asks before accepting a stream", "api"),
  startupAvailabilityCheck: b(
    "orchestrator pings its own -serviceAddr at startup and exits if unreachable",
    "api",
    true,
  ),
  remoteSigner: b("run a remote signer service", "remote-signer"),
  remoteSignerUrl: s("URL of a remote signer (gateway)", "remote-signer"),
  remoteSignerHeaders: s("headers for remote signer requests", "remote-signer", { sensitive: true }),
  remoteSignerWebhookUrl: s("webhook the remote signer calls", "remote-signer"),
  remoteSignerWebhookHeaders: s("headers for remote signer webhook requests", "remote-signer", {
    sensitive: true,
  }),
  remoteSignerAllowNoAuth: b(
    "allow an unauthenticated remote signer on a public address (unsafe)",
    "remote-signer",
  ),
  remoteDiscovery: b("discover orchestrators through remote signers", "remote-signer"),

  // Added by main(), not by the starter package
  v: s("log verbosity (6 is verbose)", "cli", {}, "3"),
  j: b("print application info as JSON and exit", "cli"),
  version: b("print the version and exit", "cli"),
  config: s("config file: one 'name value' per line; command line and environment override it", "cli"),
} as const satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAG_TABLE;

type ValueOfType<T extends FlagType> = T extends "bool"
  ? boolean
  : T extends "int" | "float"
    ? number
    : string;

/** Typed flag values: what the parsers return. Absent = not given (the node's default applies). */
export type NodeFlags = {
  -readonly [K in FlagName]?: ValueOfType<(typeof FLAG_TABLE)[K]["type"]>;
};

/** Loose input for rendering and validation (e.g. `pixelsPerUnit: 1` for a string flag). */
export type FlagValue = string | number | boolean;
export type FlagValues = { readonly [name: string]: FlagValue | undefined };

export const FLAG_NAMES = Object.keys(FLAG_TABLE) as FlagName[];

export function isFlagName(name: string): name is FlagName {
  return Object.hasOwn(FLAG_TABLE, name);
}

export function flagSpec(name: FlagName): FlagSpec {
  return FLAG_TABLE[name];
}

/** The name a value is stored under: aliases (-datadir) fold into their target (-dataDir). */
export function canonicalName(name: FlagName): FlagName {
  const alias = (FLAG_TABLE[name] as FlagSpec).aliasOf;
  return alias && isFlagName(alias) ? alias : name;
}
