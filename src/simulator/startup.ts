// The lines go-livepeer prints while it starts, for the simulated node's role and flags, in the
// node's order (cmd/livepeer/starter/starter.go). File:line tags are indicative.
import { BUILT_IN_CONTROLLERS, DEPRECATED_NETWORKS, OFFCHAIN } from "../node/config/networks.ts";
import { redactedUrl } from "./gateway/auth-webhook.ts";
import type { GlogLevel } from "./glog.ts";
import type { NodeModel } from "./node-model.ts";

export type StartupLine = [GlogLevel, string, string];

/** The chain calls a simulated on-chain node really makes (chain-client.ts, ticket-params.ts). */
export function chainCallsLine(node: NodeModel): string {
  const ethUrl = node.flags.ethUrl;
  // Redacted (an RPC URL often carries an API key), without the slash URL adds to a bare host.
  const shown = ethUrl ? redactedUrl(ethUrl) : "unset";
  const url = ethUrl && !ethUrl.endsWith("/") ? shown.replace(/\/$/, "") : shown;
  const roleCalls =
    node.role === "orchestrator"
      ? "; GetOrchestrator reads the head block, eth_gasPrice, RoundsManager.currentRound and blockHashForRound, BondingManager.getTranscoderPoolSize and TicketBroker.getSenderInfo for its ticket parameters, and Ping answers are signed by the keystore's account"
      : node.role === "gateway"
        ? "; GetOrchestrator requests are signed by the keystore's account (no tickets are sent with segments)"
        : "";
  return `Simulated: chain calls go to -ethUrl ${url} (-ethController ${node.flags.ethController ?? "unset"}) only when asked: the CLI port's /reward (RoundsManager.initializeRound, BondingManager.reward), /fundDepositAndReserve (TicketBroker.fundDepositAndReserve) and /setOrchestratorConfig (BondingManager.transcoder) send real transactions${roleCalls}. There are no round, reward or ticket watchers`;
}

export function startupLines(
  node: NodeModel,
  bound: { cli: string; http?: string; rtmp?: string; certHost?: string },
  version: string,
  /** What the role's setup printed (caps, webhook URLs), in its place before the servers' lines. */
  setupLines: readonly StartupLine[] = [],
): StartupLine[] {
  const f = node.flags;
  const out: StartupLine[] = [
    [
      "I",
      "simulator.go:1",
      `livepeer-operator node simulator standing in for go-livepeer: the node's flags, endpoints, wire protocol (gRPC and protobuf over TLS on an orchestrator's service port) and log lines; pass-through transcoding (renditions are the source segment)${node.network === OFFCHAIN ? "" : "; real chain transactions when asked (see below)"}. Every JSON answer says "Simulated": true, OrchestratorInfo says it in capabilities.version (+simulated) and its GPU names`,
    ],
  ];
  if (DEPRECATED_NETWORKS.has(node.network)) {
    out.push([
      "W",
      "starter.go:575",
      "The Rinkeby/ArbRinkeby networks are deprecated in favor of the Goerli/ArbGoerli networks which will be launched in January 2023.",
    ]);
  }
  const controller = f.ethController || BUILT_IN_CONTROLLERS[node.network];
  out.push(
    node.network in BUILT_IN_CONTROLLERS
      ? ["I", "starter.go:598", `***Livepeer is running on the ${node.network} network: ${controller}***`]
      : ["I", "starter.go:600", `***Livepeer is running on the ${node.network} network***`],
  );
  if (node.gpuIds.length > 0 && f.transcoder) {
    const devices = `[${node.gpuIds.join(" ")}]`;
    out.push(
      ["I", "starter.go:671", `Nvidia devices: ${devices}`],
      ["I", "starter.go:675", `Transcoding on these Nvidia devices: ${devices}`],
    );
  }
  if (node.role === "gateway" && f.broadcaster && !f.gateway) {
    out.push([
      "W",
      "starter.go:722",
      "-broadcaster flag is deprecated and will be removed in a future release. Please use -gateway instead",
    ]);
  }
  if (node.network === OFFCHAIN) {
    out.push(["I", "starter.go:757", "***Livepeer is in off-chain mode***"]);
  } else {
    out.push(["I", "simulator.go:2", chainCallsLine(node)]);
    if (f.ethAcctAddr) out.push(["I", "accountmanager.go:80", `Using Ethereum account: ${f.ethAcctAddr}`]);
    if (
      node.role === "orchestrator" &&
      f.pricePerUnit !== undefined &&
      /^\d+(\.\d+)?$/.test(f.pricePerUnit)
    ) {
      const perPixel = Number(f.pricePerUnit) / Number(f.pixelsPerUnit ?? "1");
      out.push(["I", "starter.go:1036", `Price: ${perPixel.toFixed(3)} wei per pixel`]);
    }
  }
  if (node.role === "gateway") {
    if (node.orchAddrs.length === 0 && !f.orchWebhookUrl && !f.remoteSignerUrl && node.network === OFFCHAIN) {
      out.push(["E", "starter.go:1745", "No orchestrator specified; transcoding will not happen"]);
    }
    if (!node.httpIngest && f.httpIngest === undefined) {
      out.push([
        "W",
        "starter.go:1756",
        "HTTP ingest is disabled because -httpAddr is publicly accessible. To enable, configure -authWebhookUrl or use the -httpIngest flag",
      ]);
    }
  }
  out.push(...setupLines);
  out.push(["I", "webserver.go:22", `CLI server listening on ${bound.cli}`]);
  if (node.role === "gateway" && bound.http)
    out.push(["I", "mediaserver.go:251", `HTTP Server listening on http://${bound.http}`]);
  if (node.role === "orchestrator" && bound.http) {
    out.push(["I", "rpc.go:284", `Listening for RPC on https://${bound.http}`]);
    if (bound.certHost !== undefined) {
      out.push(
        ["I", "cert.go:83", "Private key and cert not found. Generating"],
        ["I", "cert.go:22", `Generating cert for ${bound.certHost}`],
      );
    }
  }
  const modes: Record<NodeModel["role"], StartupLine> = {
    orchestrator: ["I", "starter.go:2123", "***Livepeer Running in Orchestrator Mode***"],
    gateway: ["I", "starter.go:2125", "***Livepeer Running in Gateway Mode***"],
    transcoder: ["I", "starter.go:2128", "**Liveepeer Running in Transcoder Mode***"],
    aiWorker: ["I", "starter.go:2130", "**Livepeer Running in AI Worker Mode**"],
    redeemer: ["I", "starter.go:2132", "**Livepeer Running in Redeemer Mode**"],
  };
  out.push(modes[node.role]);
  if (node.role === "gateway" && bound.rtmp)
    out.push(["I", "starter.go:2126", `Video Ingest Endpoint - rtmp://${bound.rtmp}`]);
  out.push(["I", "starter.go:2135", `Livepeer Node version: ${version}`]);
  return out;
}
