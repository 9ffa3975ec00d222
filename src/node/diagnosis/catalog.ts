// Every condition of the spec's "Node log conditions" table and its three silent behaviours, plus
// a few the real node shows that an operator in a cluster meets. Log patterns follow the text
// go-livepeer, LPMS/FFmpeg, go-ethereum and the AI runner actually print (read from their
// source), with the spec's wording as an alternative where it differs.
import type { CatalogEntry } from "./types.ts";

const log = (source: string) => ({ kind: "log", pattern: new RegExp(source, "i") }) as const;

export const CATALOG: readonly CatalogEntry[] = [
  {
    id: "OrchestratorCapped",
    condition: "OrchestratorCapped",
    severity: "warning",
    clears: { after: "quiet", minutes: 5 },
    recognizedBy: [
      log(String.raw`\bOrchestratorCapped\b`),
      {
        kind: "metric",
        metrics: ["livepeer_current_sessions_total", "livepeer_max_sessions_total"],
        rule: "current sessions >= max sessions",
      },
    ],
    meaning:
      "The orchestrator is at its session limit and turns new work away; the gateway tries another one.",
    action:
      "Raise -maxSessions if the GPUs have headroom, otherwise add capacity (another orchestrator or GPU).",
    seenOn: ["gateway", "orchestrator"],
    origin: "spec",
  },
  {
    id: "TicketParamsExpired",
    condition: "TicketParams expired",
    severity: "warning",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [log(String.raw`\bticket ?params expired`)],
    meaning:
      "Payment ticket parameters expired (they are valid for a number of L1 blocks) before the orchestrator processed them.",
    action:
      "None if occasional: the gateway refreshes them and retries. If constant, check that the chain RPC returns current block numbers.",
    seenOn: ["gateway", "orchestrator"],
    origin: "spec",
  },
  {
    id: "TranscodeLoopTimedOut",
    condition: "Transcode loop timed out",
    severity: "normal",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [log(String.raw`\bTranscode loop timed out`)],
    meaning:
      "No segments arrived for a while (stream ended or paused), so the transcode session was cleaned up.",
    action:
      "None. If it happens during a live stream, re-publishing makes the gateway pick a new orchestrator and session.",
    seenOn: ["orchestrator", "transcoder"],
    origin: "spec",
  },
  {
    id: "SegmentLoopTimedOut",
    condition: "Segment loop timed out",
    severity: "normal",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [log(String.raw`\bSegment loop timed out`)],
    meaning:
      "No segments arrived for a while (stream ended or paused), so the orchestrator closed the session.",
    action:
      "None. If it happens during a live stream, re-publishing makes the gateway pick a new orchestrator and session.",
    seenOn: ["orchestrator"],
    origin: "spec",
  },
  {
    id: "LevelLimitExceeded",
    condition: "MB rate > Level limit",
    severity: "warning",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [
      log(String.raw`\b(MB rate|frame MB size|DPB size|VBV (bit ?rate|buffer))( \(\d+\))? > level limit\b`),
    ],
    meaning: "A source segment exceeds the H.264 level limit it declares (the encoder warns and carries on).",
    action: "None unless transcodes fail; the fault is in the source encoding, not in the node.",
    seenOn: ["orchestrator", "transcoder"],
    origin: "spec",
  },
  {
    id: "UnableToTranscode",
    condition: "Unable to transcode",
    severity: "warning",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [log(String.raw`\bUnable to transcode\b`)],
    meaning: "A segment could not be transcoded: unsupported codec, odd parameters, or a corrupt segment.",
    action: "None for an orchestrator; the stream's source has to change.",
    seenOn: ["orchestrator", "transcoder"],
    origin: "spec",
  },
  {
    id: "UnsupportedPixelFormat",
    condition: "Unsupported input pixel format",
    severity: "warning",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [log("Unsupported input pixel format|Non 4:2:0 pixel format detected in input")],
    meaning: "The input is not YUV 4:2:0, which the transcoder requires.",
    action: "Fix the source: re-encode it as 4:2:0, typically yuv420p.",
    seenOn: ["orchestrator", "transcoder"],
    origin: "spec",
  },
  {
    id: "EthereumUnreachable",
    condition: "Could not connect to Ethereum node",
    severity: "error",
    clears: { after: "restart" },
    recognizedBy: [
      log(
        "Could not connect to Ethereum node|Failed to connect to Ethereum client|failed to get chain ID from remote ethereum node",
      ),
      {
        kind: "chain",
        read: "eth_chainId, eth_blockNumber, eth_getBlockByNumber(latest) at -ethUrl",
        rule: "no answer in time, a transport error, or an answer that is not a hex number",
      },
    ],
    meaning:
      "The chain RPC named by -ethUrl cannot be reached (or does not answer as a JSON-RPC endpoint), so the node cannot start on chain, pay or redeem tickets.",
    action:
      "Fix -ethUrl: the scheme (https for remote endpoints), the right network's RPC, and the provider's rate limits.",
    seenOn: ["gateway", "orchestrator"],
    origin: "spec",
  },
  {
    id: "PortInUse",
    condition: "listen tcp <host:port>: bind: address already in use",
    severity: "error",
    clears: { after: "restart" },
    recognizedBy: [log("bind: address already in use")],
    meaning: "A port the node binds (-httpAddr, -cliAddr or -rtmpAddr) is already taken by another process.",
    action: "Free the port, or move the node to another one with -httpAddr / -cliAddr / -rtmpAddr.",
    seenOn: ["gateway", "orchestrator", "transcoder", "aiWorker"],
    origin: "spec",
  },
  {
    id: "CudaLibraryMissing",
    condition: "libnppig.so.11: cannot open shared object file",
    severity: "error",
    clears: { after: "restart" },
    recognizedBy: [
      log(
        String.raw`lib(npp\w*|cuda\w*|nvcuvid|nvidia-encode|cublas\w*)\.so[.\d]*: cannot open shared object file`,
      ),
    ],
    meaning:
      "The GPU build of the node runs without the GPU compute toolkit (CUDA 12) libraries on its library path.",
    action:
      "Use the non-GPU build, or run the official GPU image / set LD_LIBRARY_PATH to the toolkit's libraries.",
    seenOn: ["orchestrator", "transcoder"],
    origin: "spec",
  },
  {
    id: "NvencSessionLimit",
    condition: "Cannot allocate memory (with -nvidia)",
    severity: "error",
    clears: { after: "quiet", minutes: 15 },
    recognizedBy: [
      log(
        "Cannot allocate memory|simultaneous NVENC video encoding sessions is restricted by driver|OpenEncodeSessionEx failed: out of memory",
      ),
    ],
    meaning:
      "The GPU's hardware encode/decode session limit was hit (consumer cards allow 3 to 8), typically in the startup encode test, which opens 4 renditions.",
    action:
      "Free sessions held by other processes, lower -maxSessions, or use a GPU without a driver session cap; -testTranscoder=false skips the startup test.",
    seenOn: ["orchestrator", "transcoder"],
    origin: "spec",
  },
  {
    id: "CudaErrorUnknown",
    condition: "CUDA_ERROR_UNKNOWN",
    severity: "warning",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [log(String.raw`\bCUDA_ERROR_UNKNOWN\b`)],
    meaning: "The orchestrator's GPU reported an unspecified error for a job.",
    action:
      "None per job (the gateway retries another orchestrator); if it repeats, check the GPU and its driver.",
    seenOn: ["orchestrator", "transcoder"],
    origin: "spec",
  },
  {
    id: "InsufficientGasFunds",
    condition: "insufficient funds for gas * price + value",
    severity: "error",
    clears: { after: "quiet", minutes: 60 },
    recognizedBy: [log(String.raw`insufficient funds for gas \* price \+ value`)],
    meaning:
      "The node's wallet has too little ETH to pay for a transaction (reward, ticket redemption, deposit).",
    action:
      "Add ETH to the node's account on the layer-2 network (0.02 to 0.05 ETH at least for an orchestrator).",
    seenOn: ["gateway", "orchestrator"],
    origin: "spec",
  },
  {
    id: "KeystoreNotFound",
    condition: "Error creating Ethereum account manager",
    severity: "error",
    clears: { after: "restart" },
    recognizedBy: [
      log(
        "Error creating Ethereum account manager|provided -ethKeystorePath was not found|No Ethereum account found",
      ),
    ],
    meaning:
      "The keystore is missing, in the wrong place or for another network; without one the node offers to create an account and waits for a passphrase.",
    action:
      "Check -ethKeystorePath (the path inside the container), the file permissions, and that the key file matches -ethAcctAddr and -network.",
    seenOn: ["gateway", "orchestrator"],
    origin: "spec",
  },
  {
    id: "ServiceAddressMismatch",
    condition: "Service address mismatch warning at startup",
    severity: "warning",
    clears: { after: "restart" },
    recognizedBy: [log(String.raw`Service address \S+ did not match discovered address`)],
    meaning: "The address the node detected for itself differs from the service URI registered on chain.",
    action:
      "Update the on-chain service URI with livepeer_cli (or /setOrchestratorConfig), or set -serviceAddr.",
    seenOn: ["orchestrator"],
    origin: "spec",
  },
  {
    id: "GpuOutOfMemory",
    condition: "CUDA out of memory / OOM during AI inference",
    severity: "error",
    clears: { after: "quiet", minutes: 15 },
    recognizedBy: [
      log("CUDA out of memory|CUDA error: out of memory|OutOfMemoryError|CUDA_ERROR_OUT_OF_MEMORY"),
    ],
    meaning: "An AI pipeline ran out of GPU memory.",
    action: "Lower the model's capacity, unload warm models, or request smaller outputs.",
    seenOn: ["orchestrator", "aiWorker"],
    origin: "spec",
  },
  {
    id: "PaymentCreateErrors",
    condition: "payment_create_errors increasing",
    severity: "error",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [
      {
        kind: "metric",
        metrics: ["livepeer_payment_create_errors", "node_payment_create_errors"],
        rule: "value rose between two reads",
      },
      log(String.raw`Could not create payment\b`),
    ],
    meaning: "The gateway fails to create payment tickets, so orchestrators stop taking its work.",
    action: "Check the gateway's deposit and reserve, and that its chain RPC answers.",
    seenOn: ["gateway"],
    origin: "spec",
  },
  {
    id: "GatewayUnfunded",
    condition: "gateway deposit or reserve is zero",
    severity: "error",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [
      { kind: "chain", read: "TicketBroker.getSenderInfo(gateway)", rule: "deposit == 0 or reserve == 0" },
      log(String.raw`Broadcaster (Deposit|Reserve): 0 (WEI|ETH)\b`),
    ],
    meaning:
      "With no deposit or reserve the gateway stops routing streams, without an error to the stream's sender.",
    action:
      "Fund the deposit and reserve (livepeer_cli option 11, or /fundDepositAndReserve on the CLI port); bridging ETH alone does not.",
    seenOn: ["gateway"],
    origin: "spec-silent",
  },
  {
    id: "VideoOnlyOrchestratorRejectsAi",
    condition: "video-only orchestrator rejects AI jobs",
    severity: "error",
    recognizedBy: [
      {
        kind: "endpoint",
        endpoint: "GetOrchestrator (gRPC)",
        rule: "AI work expected but no AI capability advertised",
      },
    ],
    meaning: "An orchestrator without AI capabilities turns AI jobs away without a visible error.",
    action: "Give the orchestrator AI models (-aiModels / spec.ai) or send AI work to an AI orchestrator.",
    seenOn: ["gateway", "orchestrator"],
    origin: "spec-silent",
  },
  {
    id: "NoAICapableOrchestrator",
    condition: "no orchestrator the gateway uses serves a pipeline/model it caps or is asked for",
    severity: "warning",
    recognizedBy: [
      {
        kind: "endpoint",
        endpoint: "/getNetworkCapabilities",
        rule: "no selected orchestrator serves a pipeline/model of the gateway's capability caps or spec.ai.pipelines (as the Orchestrators' status.ai reports their runners)",
      },
    ],
    meaning:
      "The gateway takes AI requests for a pipeline or model no orchestrator it uses serves: the node turns them away without a visible error.",
    action:
      "Add an Orchestrator that serves the model (spec.ai.models) to the gateway's selector, wait for its runners if they are loading, or drop the cap/pipeline from the gateway.",
    seenOn: ["gateway"],
    origin: "spec-silent",
  },
  {
    id: "AIPriceCapTooLow",
    condition: "-maxPricePerCapability below the prices of every orchestrator serving that capability",
    severity: "warning",
    recognizedBy: [
      {
        kind: "endpoint",
        endpoint: "GetOrchestrator (gRPC)",
        rule: "every selected orchestrator serving a capped pipeline/model asks more per unit than the cap (their spec.ai.models prices, -autoAdjustPrice overhead included)",
      },
    ],
    meaning:
      "The gateway's AI price cap is below what every orchestrator serving that model asks, so those requests find nobody.",
    action:
      "Raise the cap in spec.maxPricePerCapability (per its pixelsPerUnit) or use cheaper orchestrators.",
    seenOn: ["gateway"],
    origin: "spec-silent",
  },
  {
    id: "PriceCapTooLow",
    condition: "-maxPricePerUnit below orchestrator prices",
    severity: "error",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [
      {
        kind: "endpoint",
        endpoint: "/getNetworkCapabilities",
        rule: "on chain, every orchestrator's price per pixel as it quoted the gateway (the gateway node's list; else its spec plus the ticket overhead) is above the gateway's cap; off chain no price is quoted or capped",
      },
      log(String.raw`Orchestrator \S+ is above max price|No Orchestrators passed max price filter`),
    ],
    meaning:
      "The gateway's price cap is below every orchestrator's price, so no orchestrator accepts its work.",
    action: "Raise -maxPricePerUnit (per -pixelsPerUnit pixels) or use cheaper orchestrators.",
    seenOn: ["gateway"],
    origin: "spec-silent",
  },
  {
    id: "GpuMemoryHigh",
    condition: "GPU memory above 85 percent",
    severity: "warning",
    recognizedBy: [
      {
        kind: "endpoint",
        endpoint: "/hardware/stats (AI runner) or GetOrchestrator hardware (orchestrator)",
        rule: "memory used > 85% of total",
      },
    ],
    meaning: "GPU memory is above 85 percent under normal load.",
    action: "Separate video and AI onto dedicated nodes, or lower AI capacity on this one.",
    seenOn: ["orchestrator", "aiWorker"],
    origin: "spec-limit",
  },
  {
    id: "OrchestratorUnavailableAtStartup",
    condition: "Orchestrator not available at <serviceAddr>",
    severity: "error",
    clears: { after: "restart" },
    recognizedBy: [log("Orchestrator not available at")],
    meaning:
      "About 2 s after start the orchestrator could not reach its own -serviceAddr and shut itself down.",
    action:
      "Make -serviceAddr reachable from inside the node (e.g. a Service name that resolves in the pod), or pass -startupAvailabilityCheck=false.",
    seenOn: ["orchestrator"],
    origin: "real-node",
  },
  {
    id: "KeystorePasswordWrong",
    condition: "Error unlocking Ethereum account",
    severity: "error",
    clears: { after: "restart" },
    recognizedBy: [log("Error unlocking Ethereum account|could not decrypt key with given password")],
    meaning: "The keystore password does not unlock the key.",
    action:
      "Check the -ethPassword file: the right password, and no trailing newline. A lost password cannot be recovered.",
    seenOn: ["gateway", "orchestrator"],
    origin: "real-node",
  },
  {
    id: "ChainIdMismatch",
    condition: "expecting chainID of X, but got Y",
    severity: "error",
    clears: { after: "restart" },
    recognizedBy: [
      log(String.raw`expecting chainID of \d+, but got \d+`),
      { kind: "chain", read: "eth_chainId at -ethUrl", rule: "differs from the chain id of -network" },
    ],
    meaning:
      "-ethUrl points at another chain than the node expects: not the chain of -network (arbitrum-one-mainnet is 42161), or not the one its data directory was created on.",
    action:
      "Point -ethUrl at the network's chain (the provider's URL for that network), or use a fresh -dataDir for this network.",
    seenOn: ["gateway", "orchestrator"],
    origin: "real-node",
  },
  {
    id: "HttpIngestDisabled",
    condition: "HTTP ingest is disabled because -httpAddr is publicly accessible",
    severity: "warning",
    clears: { after: "restart" },
    recognizedBy: [log("HTTP ingest is disabled because -httpAddr is publicly accessible")],
    meaning:
      "The gateway listens on a non-loopback address without -authWebhookUrl, so it refuses HTTP ingest and AI requests.",
    action: "Set -authWebhookUrl, or -httpIngest=true to accept unauthenticated ingest.",
    seenOn: ["gateway"],
    origin: "real-node",
  },
  {
    id: "NoOrchestrators",
    condition: "No orchestrator specified; transcoding will not happen",
    severity: "error",
    clears: { after: "restart" },
    recognizedBy: [log("No orchestrator specified; transcoding will not happen")],
    meaning: "The gateway has no way to find orchestrators, so streams are not transcoded.",
    action: "Give -orchAddr, -orchWebhookUrl, or run on chain where orchestrators are discovered.",
    seenOn: ["gateway"],
    origin: "real-node",
  },
  {
    id: "OrchestratorWebhookFailing",
    condition: "the gateway cannot read -orchWebhookUrl",
    severity: "warning",
    clears: { after: "quiet", minutes: 5 },
    recognizedBy: [
      log(
        "Unable to make webhook request|orchestrator webhook returned HTTP status|Unable to refresh orchestrator webhook|Unable to unmarshal JSON",
      ),
    ],
    meaning:
      "The gateway asks its -orchWebhookUrl (the operator's discovery endpoint) for orchestrators about once a minute; this answer failed, so it keeps its last list, or has none if it never got one.",
    action:
      "Check that the discovery endpoint answers from the gateway pod (URL and per-gateway secret in the rendered config, Service, network policy) with a JSON list of {address}.",
    seenOn: ["gateway"],
    origin: "real-node",
  },
  {
    id: "StreamAuthDenied",
    condition: "Forbidden: Authentication denied for streamID",
    severity: "warning",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [log("Forbidden: Authentication denied for streamID")],
    meaning:
      "The gateway's -authWebhookUrl refused a new stream (an answer other than 200) or could not be reached, so the stream was turned away.",
    action:
      "Check the auth webhook: it must answer 200 (empty, or JSON with a manifestID) for streams it accepts, quickly and also when its own store is briefly unavailable.",
    seenOn: ["gateway"],
    origin: "real-node",
  },
  {
    id: "KeystorePasswordTrailingNewline",
    condition: "the -ethPassword file ends with a newline",
    severity: "error",
    recognizedBy: [
      {
        kind: "config",
        input: "the keystore Secret's password (mounted as the -ethPassword file)",
        rule: "ends with \\n or \\r\\n",
      },
    ],
    meaning:
      "The node reads the password file literally, newline included, so the keystore does not unlock and the node stops at start (echo and most editors add the newline).",
    action:
      "Recreate the Secret's password without a newline: printf '%s' \"$PASSWORD\" | kubectl create secret generic <name> --from-file=password=/dev/stdin --from-file=key.json=<key file> --dry-run=client -o yaml | kubectl apply -f -",
    seenOn: ["gateway", "orchestrator"],
    origin: "spec",
  },
  {
    id: "RPCStale",
    condition: "the chain RPC's head block stopped advancing",
    severity: "warning",
    recognizedBy: [
      {
        kind: "chain",
        read: "eth_getBlockByNumber(latest) at -ethUrl",
        rule: "the head block is older than the stale time (default 2 min), or its number did not change for that long",
      },
    ],
    meaning:
      "The RPC answers with an old block: the node sees the chain stand still, so ticket parameters expire (constant 'TicketParams expired') and rounds seem not to pass.",
    action:
      "Check the RPC provider's status or the node it runs (syncing, stuck); switch -ethUrl to a provider that follows the chain. On a devnet, start the round ticker: livepeer-operator devnet up --block-interval 1.",
    seenOn: ["gateway", "orchestrator"],
    origin: "spec",
  },
  {
    id: "InsecureRemoteRPC",
    condition: "a remote -ethUrl without https",
    severity: "warning",
    recognizedBy: [
      {
        kind: "config",
        input: "-ethUrl",
        rule: "http:// or ws:// to a host that is not loopback or a cluster-internal name",
      },
    ],
    meaning:
      "The node talks to a remote chain RPC in clear text: anyone on the path can read the provider's API key in the URL and feed the node false chain data.",
    action:
      "Use the provider's https:// (or wss://) URL; plain http is only for loopback, in-cluster Service names and the devnet.",
    seenOn: ["gateway", "orchestrator"],
    origin: "spec",
  },
  {
    id: "ProtocolNotFound",
    condition: "no Livepeer protocol at the Controller address on this chain",
    severity: "error",
    recognizedBy: [
      {
        kind: "chain",
        read: "eth_getCode(Controller), Controller.getContract(keccak256(name))",
        rule: "no code at the Controller, or BondingManager, RoundsManager, ServiceRegistry or TicketBroker not registered in it",
      },
    ],
    meaning:
      "The Controller the node would ask for the protocol's contracts is not on this chain (wrong -ethController, or a devnet that was restarted and redeployed elsewhere), so the node cannot start on chain.",
    action:
      "Check -ethController against the network's deployment; for a devnet, re-export its deployment (livepeer-operator devnet configmap) after each 'devnet up' that redeployed.",
    seenOn: ["gateway", "orchestrator"],
    origin: "real-node",
  },
  {
    id: "NotRegistered",
    condition: "orchestrator not registered on chain",
    severity: "error",
    recognizedBy: [
      {
        kind: "chain",
        read: "ServiceRegistry.getServiceURI(orchestrator), BondingManager.isRegisteredTranscoder, isActiveTranscoder",
        rule: "no service URI, or neither registered nor active as a transcoder",
      },
    ],
    meaning:
      "Gateways find orchestrators through the chain: without a service URI, or without being a registered transcoder, no on-chain gateway sends this node work.",
    action:
      "Register with livepeer_cli (bond LPT to yourself, set the transcoder's reward cut and fee share, and set the service URI to the address gateways reach).",
    seenOn: ["orchestrator"],
    origin: "spec",
  },
  {
    id: "ServiceURIMismatch",
    condition: "on-chain service URI differs from the address the node is exposed at",
    severity: "warning",
    recognizedBy: [
      {
        kind: "chain",
        read: "ServiceRegistry.getServiceURI(orchestrator)",
        rule: "host or port differs from -serviceAddr, or the scheme is not https",
      },
    ],
    meaning:
      "Gateways dial the service URI registered on chain; when it is not where the node listens, their work goes elsewhere (or nowhere). A warning, since a proxy or load balancer in front of the node may be what the URI names.",
    action:
      "Set the on-chain URI to https://<serviceAddr> (livepeer_cli, /setOrchestratorConfig on the CLI port, or livepeer-operator service-uri set), or set -serviceAddr / spec.serviceAddr to the address the URI names.",
    seenOn: ["orchestrator"],
    origin: "spec",
  },
  {
    id: "NotInActiveSet",
    condition: "orchestrator outside the active set",
    severity: "warning",
    recognizedBy: [
      {
        kind: "chain",
        read: "BondingManager.isActiveTranscoder(orchestrator), the transcoder pool's smallest stake",
        rule: "not active in the current round",
      },
    ],
    meaning:
      "Only the top orchestrators by stake (100 on the layer-2 network) are active in a round; one outside gets no jobs from on-chain gateways and earns no rewards.",
    action:
      "Raise the stake bonded to the orchestrator above the pool's smallest (more self-bond or delegators); a newly registered or re-bonded orchestrator joins at the next round.",
    seenOn: ["orchestrator"],
    origin: "spec-limit",
  },
  {
    id: "RewardNotCalled",
    condition: "reward not called in the current round",
    severity: "warning",
    recognizedBy: [
      {
        kind: "chain",
        read: "BondingManager.getTranscoder(orchestrator).lastRewardRound, RoundsManager.currentRound",
        rule: "active, reward on, and lastRewardRound < currentRound past a grace share of the round",
      },
    ],
    meaning:
      "An active orchestrator that does not call reward before the round ends loses that round's inflation for itself and its delegators (a round is about a day on the layer-2 network).",
    action:
      "Check the node's log for 'Error trying to call reward' and its wallet's ETH for gas; restart it if the reward service stopped (a known cause: an old lpdb.sqlite3), or call reward with livepeer_cli before the round ends.",
    seenOn: ["orchestrator"],
    origin: "spec-limit",
  },
  {
    id: "WalletCannotPayDuty",
    condition: "the node's wallet cannot pay the gas of its next reward call or top-up",
    severity: "warning",
    recognizedBy: [
      {
        kind: "chain",
        read: "eth_getBalance(node account), eth_gasPrice, the gas of recent duty transactions",
        rule: "balance < gas price x the gas the next duty takes (recently used, with headroom) + the top-up's value",
      },
    ],
    meaning:
      "Projected from recent gas use and today's gas price, the next reward call or top-up would fail with 'insufficient funds', whatever a fixed threshold says.",
    action: "Send ETH to the node's account on the layer-2 network before the next round or top-up.",
    seenOn: ["gateway", "orchestrator"],
    origin: "spec-limit",
  },
  {
    id: "LowWalletBalance",
    condition: "wallet ETH below the recommended minimum",
    severity: "warning",
    recognizedBy: [
      { kind: "chain", read: "eth_getBalance(node account)", rule: "below the threshold (default 0.02 ETH)" },
    ],
    meaning:
      "The node's account pays gas for reward calls, ticket redemption and deposits; below 0.02 to 0.05 ETH those transactions start failing with 'insufficient funds'.",
    action: "Send ETH to the node's account on the layer-2 network (keep 0.02 to 0.05 ETH at least).",
    seenOn: ["gateway", "orchestrator"],
    origin: "spec-limit",
  },
  // The operator's on-chain duties (issue 22): what it does for a node through the node's CLI port,
  // and what it says when that did not happen. The chart's alerts page on these ids.
  {
    id: "RewardPending",
    condition: "reward not called past the operator's deadline in the round",
    severity: "warning",
    recognizedBy: [
      {
        kind: "chain",
        read: "BondingManager.getTranscoder(orchestrator).lastRewardRound, RoundsManager round progress",
        rule: "active, reward assurance on, lastRewardRound < currentRound past spec.rewardAssurance.deadline",
      },
    ],
    meaning:
      "The node has not called reward this round and the round is past the declared deadline: the operator asks the node to call it (POST /reward on its CLI port), or waits while gas is above the cap.",
    action:
      "Usually nothing: the operator's call follows. If it stays pending, check the gas price against spec.rewardAssurance.maxGasPriceGwei and the node's wallet ETH.",
    seenOn: ["orchestrator"],
    origin: "spec-limit",
  },
  {
    id: "RewardFailed",
    condition: "the operator's reward call through the node failed",
    severity: "warning",
    recognizedBy: [
      {
        kind: "endpoint",
        endpoint: "POST /reward (CLI port)",
        rule: "the node answers non-200 ('Error calling reward: ...')",
      },
    ],
    meaning:
      "The node could not call reward when the operator asked (out of gas, RPC error, round not initialized, nonce trouble): the round's inflation is lost unless a later try in the round succeeds.",
    action:
      "Read the cause in the message; fund the node's account with ETH when it says 'insufficient funds'. The operator tries again later in the round.",
    seenOn: ["orchestrator"],
    origin: "real-node",
  },
  {
    id: "RewardMissed",
    condition: "a round ended without a reward call",
    severity: "warning",
    recognizedBy: [
      {
        kind: "chain",
        read: "BondingManager.getTranscoder(orchestrator).lastRewardRound, RoundsManager.currentRound",
        rule: "a round seen without reward is over and lastRewardRound is still before it",
      },
    ],
    meaning:
      "An active orchestrator did not call reward in a round that is over: that round's inflation is lost for it and its delegators.",
    action:
      "Find why (the RewardFailed or RewardPending before it, the node's log); fund the wallet or raise the gas cap so this round does not go the same way.",
    seenOn: ["orchestrator"],
    origin: "spec-limit",
  },
  {
    id: "TopUpFailed",
    condition: "the operator's top-up of a gateway's deposit or reserve failed",
    severity: "warning",
    recognizedBy: [
      {
        kind: "endpoint",
        endpoint: "POST /fundDepositAndReserve (CLI port)",
        rule: "the node answers non-200 ('could not execute fundDepositAndReserve: ...')",
      },
    ],
    meaning:
      "The gateway is below its declared minimum deposit or reserve and the node could not add funds: once either reaches 0 it stops paying orchestrators, silently.",
    action:
      "Read the cause in the message; usually send ETH to the gateway's account (the top-up is paid from it plus gas).",
    seenOn: ["gateway"],
    origin: "real-node",
  },
  {
    id: "TopUpCapped",
    condition: "a top-up would exceed the gateway's daily cap",
    severity: "warning",
    recognizedBy: [
      {
        kind: "chain",
        read: "TicketBroker.getSenderInfo(gateway), the operator's top-ups of the last 24 hours",
        rule: "below a minimum, and the top-up would take the 24-hour total past spec.funding.maxPerDay",
      },
    ],
    meaning:
      "The gateway spends faster than its declared daily cap allows the operator to refill: no transaction is sent, and it runs down.",
    action:
      "Find what spends (streams, ticket value); raise spec.funding.maxPerDay if the spending is expected, or fund it by hand with 'livepeer-operator deposit'.",
    seenOn: ["gateway"],
    origin: "spec-limit",
  },
  {
    id: "OnchainSettingsDrift",
    condition: "the orchestrator's reward cut or fee share on chain differ from its spec",
    severity: "warning",
    recognizedBy: [
      {
        kind: "chain",
        read: "BondingManager.getTranscoder(orchestrator).rewardCut, .feeShare",
        rule: "differs from spec.onchain.rewardCut / feeShare",
      },
    ],
    meaning:
      "The cut delegators see on chain is not the declared one: a change nobody declared can mean a leaked key or a manual edit, not only a delegator notice.",
    action:
      "If the chain is right, change spec.onchain; if the spec is right, set spec.onchain.manage: true and the operator sets it back through the node (a transaction, at most once a round), or use livepeer_cli.",
    seenOn: ["orchestrator"],
    origin: "spec-limit",
  },
  // Live runners (go-livepeer 0.9 ai/runner/live_runner.go and cmd/livepeer/starter, the
  // ai-runner's live process guardian): slog lines carry key=value pairs after the message.
  {
    id: "LiveRunnerUnhealthy",
    condition: "static live runner health changed ... status=unavailable",
    severity: "warning",
    clears: { after: "quiet", minutes: 5 },
    recognizedBy: [log(String.raw`static live runner health changed\b.*\bstatus="?unavailable`)],
    meaning:
      "The node's health check of a static live runner (its health_url, every ~5 s, 3 s timeout) failed: the runner is hidden from discovery and its sessions were released.",
    action:
      "Check the runner pod named in the line: its /health must answer 200 within 3 s (warm-up, a crash, or its GPU gone).",
    seenOn: ["orchestrator"],
    origin: "real-node",
  },
  {
    id: "LiveRunnerHeartbeatStale",
    condition: "live runner deregistered ... reason=heartbeat timeout",
    severity: "warning",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [log(String.raw`live runner deregistered\b.*reason="?heartbeat timeout`)],
    meaning:
      "A dynamic live runner sent no heartbeat within its TTL (20 s by default): the node dropped it from discovery and released its sessions.",
    action:
      "Check that the runner reaches the node at -liveRunnerAddr with the orchestrator secret, and that it is not stuck or restarting.",
    seenOn: ["orchestrator"],
    origin: "real-node",
  },
  {
    id: "LiveRunnerConfigRejected",
    condition: "error registering -liveRunnerConfig / running with -useLiveRunners requires -orchSecret",
    severity: "error",
    clears: { after: "restart" },
    recognizedBy: [
      log("error (registering|reading) -liveRunnerConfig|running with -useLiveRunners requires -orchSecret"),
    ],
    meaning: "The node refused its live runner setup at start and exited: no live app is offered.",
    action:
      "Read the rest of the line (the field go-livepeer names, e.g. price_info.price) and fix spec.ai.live, or report it if the operator rendered it.",
    seenOn: ["orchestrator"],
    origin: "real-node",
  },
  {
    id: "LivePipelineLoadTimedOut",
    condition: "Pipeline loading timed out after 180s",
    severity: "error",
    clears: { after: "quiet", minutes: 15 },
    recognizedBy: [log(String.raw`Pipeline loading timed out after \d+s`)],
    meaning:
      "A live runner's pipeline did not load within the ai-runner's own limit: the runner reports ERROR.",
    action:
      "Give the runner a GPU with more memory or faster storage for its weights, or check its log for the load error.",
    seenOn: ["aiWorker"],
    origin: "real-node",
  },
  {
    id: "LivePipelineProcessDied",
    condition: "Process is not alive. Returning ERROR state",
    severity: "error",
    clears: { after: "quiet", minutes: 10 },
    recognizedBy: [log(String.raw`Process is not alive\. Returning ERROR state`)],
    meaning: "A live runner's pipeline process died: its /health reports ERROR until it restarts.",
    action:
      "Read the runner's log above the line (CUDA out of memory, a crash) and restart the pod if it does not recover.",
    seenOn: ["aiWorker"],
    origin: "real-node",
  },
  {
    id: "NoLiveCapableOrchestrator",
    condition: "no orchestrator the gateway uses offers a live app it declares",
    severity: "warning",
    recognizedBy: [
      {
        kind: "endpoint",
        endpoint: "/discovery (each orchestrator's live runners)",
        rule: "no selected orchestrator offers live-video-to-video/<id> of the gateway's spec.ai.liveApps with a healthy runner (as the Orchestrators' status.ai.live reports them)",
      },
    ],
    meaning:
      "The gateway is expected to serve a live app no orchestrator it uses offers now: the SDK's discovery for it comes back empty and sessions are refused.",
    action:
      "Add an Orchestrator with the app in spec.ai.live to the gateway's selector, wait for its runners to warm up, or drop the app from spec.ai.liveApps.",
    seenOn: ["gateway"],
    origin: "real-node",
  },
];

export const CATALOG_BY_ID: ReadonlyMap<string, CatalogEntry> = new Map(CATALOG.map((e) => [e.id, e]));

export function catalogEntry(id: string): CatalogEntry {
  const entry = CATALOG_BY_ID.get(id);
  if (!entry) throw new Error(`no catalog entry ${id}`);
  return entry;
}
