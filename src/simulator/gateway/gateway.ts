// The simulated gateway: where streams come in (HTTP push, RTMP), how they are authorised and
// limited, how each segment reaches an orchestrator, and what comes out (HLS). Both ingests share
// openStream and processSegment, as in the node (createRTMPStreamIDHandler, processSegment).
import { randomBytes } from "node:crypto";
import { presetsFrom } from "../../media/presets.ts";
import type { NodeFlags } from "../../node/config/flag-table.ts";
import type { SimulatedEthClient } from "../chain-client.ts";
import { clogMessage, goDuration, goQuote, type LogContext } from "../clog.ts";
import type { GlogLevel } from "../glog.ts";
import type { NodeModel } from "../node-model.ts";
import type { SimulatorState } from "../state.ts";
import { authenticateStream, redactedUrl } from "./auth-webhook.ts";
import { Broadcaster, type SegmentIn, type TranscodeOutcome } from "./broadcast.ts";
import { BroadcastConfig } from "./broadcast-config.ts";
import { OrchestratorConnections } from "./orchestrator-connections.ts";
import {
  type OrchestratorPool,
  staticPool,
  WEBHOOK_REFRESH_INTERVAL_MS,
  WebhookPool,
} from "./orchestrator-pool.ts";
import type { RemoteSignerLink } from "./remote-signer-client.ts";
import { HTTP_PUSH_TIMEOUT_MS, type Stream, StreamRegistry } from "./streams.ts";

type Log = (level: GlogLevel, where: string, message: string) => void;

export interface GatewayTimings {
  /** -orchWebhookUrl refresh interval (the node: 1 minute). */
  orchWebhookRefreshMs?: number;
  /** No segment for this long ends an HTTP-pushed stream (the node: 60 s). */
  streamTimeoutMs?: number;
}

/** The source rendition's bandwidth in the master playlist (the node writes 4000k). */
const SOURCE_BANDWIDTH = 4_000_000;

export type OpenResult = { stream: Stream } | { refused: "forbidden" | "error"; message: string };

export class Gateway {
  readonly config: BroadcastConfig;
  readonly streams: StreamRegistry;
  readonly pool: OrchestratorPool | undefined;
  /** Kept connections to orchestrators (segments, AI jobs), closed on stop. */
  readonly connections: OrchestratorConnections;
  private readonly broadcaster: Broadcaster;
  private readonly authUrl: URL | undefined;
  private readonly state: SimulatorState;
  private readonly log: Log;

  constructor(
    node: NodeModel,
    state: SimulatorState,
    log: Log,
    timings: GatewayTimings = {},
    /** On chain: the node's account, to ask orchestrators as itself. */
    eth?: SimulatedEthClient,
    /** -remoteSignerUrl: the signer's answer, asked at start (remote-signer-client.ts). */
    signer?: RemoteSignerLink,
  ) {
    this.state = state;
    this.log = log;
    this.connections = signer
      ? new OrchestratorConnections(undefined, async () => signer.identity)
      : new OrchestratorConnections(eth);
    const f: NodeFlags = node.flags;
    this.config = new BroadcastConfig(
      {
        transcodingOptions: f.transcodingOptions ?? "P240p30fps16x9,P360p30fps16x9",
        maxPricePerUnit: f.maxPricePerUnit ?? "0",
        pixelsPerUnit: f.pixelsPerUnit ?? "1",
      },
      node.network !== "offchain",
      log,
    );
    this.config.logStartup(f.maxPricePerUnit ?? "0");
    if (node.network === "offchain" && this.config.maxPrice) {
      log(
        "I",
        "simulator.go:10",
        "Simulated: -maxPricePerUnit is applied off chain too (the node applies it only on chain, where orchestrators advertise prices)",
      );
    }
    if (f.authWebhookUrl) {
      this.authUrl = new URL(f.authWebhookUrl);
      log("I", "starter.go:1616", `Using auth webhook URL ${redactedUrl(this.authUrl)}`);
    }
    if (f.orchWebhookUrl) {
      const url = new URL(f.orchWebhookUrl);
      log("I", "starter.go:1707", `Using orchestrator webhook URL ${redactedUrl(url)}`);
      const pool = new WebhookPool(url, timings.orchWebhookRefreshMs ?? WEBHOOK_REFRESH_INTERVAL_MS, log);
      void pool.entries(); // the node asks once at start (NewWebhookPool)
      this.pool = pool;
    } else if (node.orchAddrs.length > 0) {
      this.pool = staticPool(node.orchAddrs);
    } else if (signer) {
      // The signer's discovery, with the signer's headers (starter.go).
      const url = new URL("/discover-orchestrators", signer.url);
      log("I", "starter.go:1716", `Using remote signer orchestrator discovery endpoint ${url}`);
      const pool = new WebhookPool(
        url,
        timings.orchWebhookRefreshMs ?? WEBHOOK_REFRESH_INTERVAL_MS,
        log,
        signer.headers,
      );
      void pool.entries();
      this.pool = pool;
    }
    this.broadcaster = new Broadcaster({
      pool: this.pool,
      config: this.config,
      connections: this.connections,
      maxAttempts: Number(f.maxAttempts ?? 3) || 3,
      ignoreMaxPriceIfNeeded: f.ignoreMaxPriceIfNeeded === true,
      log,
    });
    this.streams = new StreamRegistry(state, timings.streamTimeoutMs ?? HTTP_PUSH_TIMEOUT_MS, log, (s) =>
      this.broadcaster.endSessions(s),
    );
  }

  /** A new stream, authorised by -authWebhookUrl when set and counted against -maxSessions. */
  async openStream(init: {
    ingestUrl: string;
    externalID: string;
    ingest: Stream["ingest"];
    resolution: string;
    context: LogContext;
  }): Promise<OpenResult> {
    const nonce = BigInt(`0x${randomBytes(8).toString("hex")}`).toString();
    const context: LogContext = { ...init.context, standard: { ...init.context.standard, nonce } };
    let manifestID = init.externalID;
    let profiles = this.config.profiles;
    if (this.authUrl) {
      const outcome = await authenticateStream(this.authUrl, init.ingestUrl);
      if (!outcome.accepted) {
        this.log(
          "E",
          "mediaserver.go:291",
          clogMessage(
            context,
            `Forbidden: Authentication denied for streamID url=${init.ingestUrl} err=${goQuote(outcome.error)}`,
          ),
        );
        return { refused: "forbidden", message: outcome.error };
      }
      if (outcome.answer) {
        this.log(
          "I",
          "auth.go:55",
          `Stream authentication for authURL=${redactedUrl(this.authUrl)} url=${init.ingestUrl} dur=${goDuration(outcome.tookMs)}`,
        );
        manifestID = outcome.answer.manifestID.replace(/^\/+/, "").split("/")[0] || manifestID;
        if (outcome.answer.presets?.length) profiles = presetsFrom(outcome.answer.presets.join(","));
      }
    }
    const existing = this.streams.find(manifestID);
    if (existing) return { stream: existing };
    if (this.state.sessionLimit > 0 && this.streams.count >= this.state.sessionLimit) {
      const message = `Too many connections for streamID url=${init.ingestUrl} err=%!q(<nil>)`;
      this.log(
        "E",
        "mediaserver.go:385",
        clogMessage({ ...context, standard: { ...context.standard, manifestID } }, message),
      );
      return { refused: "error", message };
    }
    const stream = this.streams.register({
      manifestID,
      externalID: init.externalID,
      nonce,
      ingest: init.ingest,
      profiles,
      resolution: init.resolution,
    });
    return { stream };
  }

  /** The source into the playlist, the renditions from an orchestrator after it. */
  async processSegment(stream: Stream, seg: SegmentIn, context: LogContext): Promise<TranscodeOutcome> {
    stream.lastUsed = Date.now();
    stream.sourceBytes += seg.data.length;
    const seconds = seg.durationMs / 1000;
    stream.presentation.add(
      {
        name: "source",
        bandwidth: SOURCE_BANDWIDTH,
        ...(stream.resolution ? { resolution: stream.resolution } : {}),
      },
      seg.seq,
      seconds,
      seg.data,
    );
    const outcome = await this.broadcaster.transcode(stream, seg, context);
    if (outcome.kind === "transcoded") {
      for (const { profile, data } of outcome.renditions) {
        stream.transcodedBytes += data.length;
        stream.presentation.add(
          {
            name: profile.name,
            bandwidth: profile.bitrate,
            resolution: `${profile.width}x${profile.height}`,
          },
          seg.seq,
          seconds,
          data,
        );
      }
    }
    stream.lastUsed = Date.now();
    return outcome;
  }

  /** The gateway's part of /status: its pool (refreshed when due) and its streams. */
  async statusFields(): Promise<Record<string, unknown>> {
    const pool = this.pool ? (await this.pool.entries()).entries : undefined;
    const streams = this.streams.all();
    return {
      Manifests: Object.fromEntries(streams.map((s) => [s.manifestID, masterPlaylistJson(s)])),
      InternalManifests: Object.fromEntries(
        streams.filter((s) => s.externalID !== s.manifestID).map((s) => [s.externalID, s.manifestID]),
      ),
      StreamInfo: Object.fromEntries(
        streams.map((s) => [
          s.manifestID,
          { SourceBytes: s.sourceBytes, TranscodedBytes: s.transcodedBytes },
        ]),
      ),
      OrchestratorPool: pool?.map((e) => e.url) ?? [],
      OrchestratorPoolInfos: pool ? pool.map((e) => ({ Url: e.url, Score: e.score, Latency: null })) : null,
      // Not in the node's /status (it has /getBroadcastConfig and metrics): the caps in force now.
      BroadcastConfig: this.config.broadcastConfigBody(),
      MaxPricePerCapability: this.config.capabilityMaxPricesBody(),
    };
  }

  stop(): void {
    // The node ends its sessions as it stops; connections close once those calls are answered.
    const ends = this.streams.all().map((s) => this.broadcaster.endSessions(s));
    this.streams.stop();
    void Promise.all(ends).finally(() => this.connections.closeAll());
  }
}

/** The shape Go's encoding/json gives m3u8.MasterPlaylist, reduced to what says which renditions exist. */
function masterPlaylistJson(s: Stream) {
  return {
    Variants: s.presentation.renditionNames.map((name) => ({ URI: `${s.manifestID}/${name}.m3u8` })),
    Args: "",
    CypherVersion: "",
  };
}
