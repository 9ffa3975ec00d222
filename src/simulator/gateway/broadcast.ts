// How a gateway gets a segment transcoded (server/broadcast.go processSegment, transcodeSegment,
// selectOrchestrator; server/segment_rpc.go SubmitSegment): the stream keeps one orchestrator
// session while it works; a new one is picked from the pool's orchestrators whose advertised price
// per pixel is within the cap; a failure (OrchestratorCapped, a refused connection ...) suspends
// that orchestrator for the stream and the segment is tried again on the next one, up to
// -maxAttempts times. The wire is the node's (segment-protocol.ts, orchestrator-connections.ts):
// GetOrchestrator over gRPC/TLS, POST /segment with protobuf headers, renditions downloaded from
// the URLs of the TranscodeResult, EndTranscodingSession when the stream ends. Differences from
// the node, on purpose: orchestrators are tried in the pool's order (the node shuffles and sorts
// by latency), the cap applies off chain too (the node applies it only on chain, where prices are
// advertised), the simulator sends segments to the address it was given (the node to the
// advertised service URI) and pays no tickets (Payment carries only the sender).
import type { VideoPreset } from "../../media/presets.ts";
import { compare, floatString, type Rational, rational } from "../../node/pricing/rational.ts";
import {
  type AuthTokenMessage,
  decodeMessage,
  type TranscodeResultMessage,
} from "../../node/wire/messages.ts";
import { clogMessage, goDuration, goQuote, type LogContext } from "../clog.ts";
import type { GlogLevel } from "../glog.ts";
import { encodeHeader, PAYMENT_HEADER, SEGMENT_HEADER, segmentHash } from "../segment-protocol.ts";
import type { BroadcastConfig } from "./broadcast-config.ts";
import { callError, type OrchestratorConnections } from "./orchestrator-connections.ts";
import type { OrchestratorPool } from "./orchestrator-pool.ts";
import type { OrchestratorSession, Stream } from "./streams.ts";

type Log = (level: GlogLevel, where: string, message: string) => void;

export interface SegmentIn {
  seq: number;
  data: Uint8Array;
  durationMs: number;
}

export type TranscodeOutcome =
  | { kind: "transcoded"; renditions: { profile: VideoPreset; data: Uint8Array }[] }
  /** No orchestrator to send it to: the node answers 503 "No sessions available". */
  | { kind: "no-sessions" }
  | { kind: "failed"; error: string };

interface OrchestratorAnswer {
  url: string;
  authToken: AuthTokenMessage;
  address: string | undefined;
  price: Rational | undefined;
}

/** common.HTTPTimeout, SegHttpPushTimeoutMultiplier, SegUploadTimeoutMultiplier, MinSegmentUploadTimeout. */
const HTTP_TIMEOUT_MS = 8_000;
const INFO_TIMEOUT_MS = 3_000;

export interface BroadcasterDeps {
  pool: OrchestratorPool | undefined;
  config: BroadcastConfig;
  /** The kept connections to orchestrators, and who the gateway is (the payment's sender). */
  connections: OrchestratorConnections;
  maxAttempts: number;
  ignoreMaxPriceIfNeeded: boolean;
  log: Log;
}

export class Broadcaster {
  private readonly d: BroadcasterDeps;

  constructor(deps: BroadcasterDeps) {
    this.d = deps;
  }

  async transcode(stream: Stream, seg: SegmentIn, context: LogContext): Promise<TranscodeOutcome> {
    if (stream.profiles.length === 0) return { kind: "transcoded", renditions: [] };
    let lastError = "";
    for (let attempt = 0; attempt < this.d.maxAttempts; attempt++) {
      const session = stream.session ?? (await this.newSession(stream, context));
      if (!session) {
        this.d.log("I", "broadcast.go:1154", clogMessage(context, "No sessions available for segment"));
        return { kind: "no-sessions" };
      }
      this.d.log(
        "I",
        "broadcast.go:1165",
        clogMessage(context, "Trying to transcode segment using sessions=1"),
      );
      const result = await this.submit(stream, session, seg, context);
      if (typeof result !== "string") {
        stream.session = session;
        return { kind: "transcoded", renditions: result };
      }
      stream.session = undefined;
      stream.suspended.add(session.url);
      lastError = result;
    }
    return { kind: "failed", error: `hit max transcode attempts: ${lastError}` };
  }

  /** Tells each orchestrator that served the stream that it ended (EndTranscodingSession). */
  endSessions(stream: Stream): Promise<void> {
    const calls = [...stream.opened].map(([url, authToken]) =>
      this.d.connections
        .to(url)
        .call(
          "EndTranscodingSession",
          { type: "EndTranscodingSessionRequest", value: { authToken } },
          "EndTranscodingSessionResponse",
          { timeoutMs: INFO_TIMEOUT_MS },
        )
        .then(
          () => undefined,
          (err: unknown) =>
            this.d.log(
              "E",
              "broadcast.go:833",
              clogMessage(
                { standard: { manifestID: stream.manifestID } },
                `Error completing transcoding session: ${goQuote((err as Error).message)}`,
              ),
            ),
        ),
    );
    stream.opened.clear();
    return Promise.all(calls).then(() => undefined);
  }

  private async newSession(stream: Stream, context: LogContext): Promise<OrchestratorSession | undefined> {
    if (!this.d.pool) {
      this.d.log(
        "I",
        "broadcast.go:868",
        clogMessage(context, "No orchestrators specified; not transcoding"),
      );
      return undefined;
    }
    const { entries, error } = await this.d.pool.entries();
    const ordered = [
      ...entries.filter((e) => !stream.suspended.has(e.url)),
      ...entries.filter((e) => stream.suspended.has(e.url)),
    ];
    const answers = await Promise.all(ordered.map((e) => this.orchestratorInfo(e.url)));
    const found = answers.filter((a): a is OrchestratorAnswer => a !== undefined);
    this.d.log(
      "I",
      "discovery.go:343",
      clogMessage(
        context,
        `Done fetching orch info orchs=${found.length}/${entries.length} responses=${found.length}/${entries.length} timedOut=false`,
      ),
    );
    if (found.length === 0) {
      this.d.log(
        "I",
        "broadcast.go:875",
        clogMessage(
          context,
          `No orchestrators found; not transcoding${error ? ` err=${goQuote(error)}` : ""}`,
        ),
      );
      return undefined;
    }
    const chosen = this.withinCap(found, context)[0];
    if (!chosen) return undefined;
    stream.opened.set(chosen.url, chosen.authToken);
    return { url: chosen.url, authToken: chosen.authToken, price: chosen.price };
  }

  /** server/selection_algorithm.go filterByMaxPrice, with -ignoreMaxPriceIfNeeded. */
  private withinCap(found: OrchestratorAnswer[], context: LogContext): OrchestratorAnswer[] {
    const cap = this.d.config.weiCap;
    if (!cap || !found.some((a) => a.price)) return found;
    const within = found.filter((a) => {
      if (a.price && compare(a.price, cap) <= 0) return true;
      this.d.log(
        "W",
        "selection_algorithm.go:86",
        clogMessage(
          context,
          `Orchestrator ${a.address ?? a.url} is above max price ${floatString(cap, 3)}, price=${a.price ? floatString(a.price, 3) : "-1.000"}`,
        ),
      );
      return false;
    });
    if (within.length > 0 || !this.d.ignoreMaxPriceIfNeeded) return within;
    this.d.log(
      "W",
      "selection_algorithm.go:65",
      clogMessage(
        context,
        `No Orchestrators passed max price filter, not using the filter, numAddrs=${found.length}, maxPrice=${floatString(cap, 3)}, prices=[${found.map((a) => (a.price ? floatString(a.price, 3) : "<nil>")).join(" ")}], addrs=[${found.map((a) => a.address ?? a.url).join(" ")}]`,
      ),
    );
    return found;
  }

  private async orchestratorInfo(url: string): Promise<OrchestratorAnswer | undefined> {
    try {
      const info = await this.d.connections.getOrchestrator(url, INFO_TIMEOUT_MS);
      if (!info.authToken) return undefined;
      const p = info.priceInfo;
      const address = info.address.some((b) => b !== 0) ? `0x${info.address.toString("hex")}` : undefined;
      return {
        url,
        authToken: info.authToken,
        address,
        price:
          p && BigInt(p.pixelsPerUnit) > 0n
            ? rational(BigInt(p.pricePerUnit), BigInt(p.pixelsPerUnit))
            : undefined,
      };
    } catch {
      return undefined;
    }
  }

  private async submit(
    stream: Stream,
    session: OrchestratorSession,
    seg: SegmentIn,
    outer: LogContext,
  ): Promise<{ profile: VideoPreset; data: Uint8Array }[] | string> {
    const context: LogContext = {
      standard: { ...outer.standard, orchSessionID: session.authToken.sessionId, orchestrator: session.url },
      extra: outer.extra ?? [],
    };
    const log = (level: GlogLevel, where: string, message: string) =>
      this.d.log(level, where, clogMessage(context, message));
    const seconds = seg.durationMs / 1000;
    const httpTimeout = Math.max(HTTP_TIMEOUT_MS, 4 * seg.durationMs);
    const uploadTimeout = Math.max(2_000, 0.5 * seg.durationMs);
    log(
      "I",
      "segment_rpc.go:549",
      `Submitting segment bytes=${seg.data.length} orch=${session.url} timeout=${goDuration(httpTimeout)} uploadTimeout=${goDuration(uploadTimeout)} segDur=${seconds}`,
    );
    const started = performance.now();
    const identity = await this.d.connections.identity();
    const connection = this.d.connections.to(session.url);
    const segmentUrl = `${session.url.replace(/\/+$/, "")}/segment`;
    let answer: Awaited<ReturnType<typeof connection.request>>;
    try {
      answer = await connection.request(
        "POST",
        "/segment",
        {
          "content-type": "video/MP2T",
          [SEGMENT_HEADER.toLowerCase()]: encodeHeader("SegData", {
            manifestId: Buffer.from(stream.manifestID, "utf8"),
            seq: seg.seq,
            hash: segmentHash(seg.data),
            duration: Math.round(seg.durationMs),
            authToken: session.authToken,
            fullProfiles3: stream.profiles.map((p) => ({
              name: p.name,
              width: p.width,
              height: p.height,
              bitrate: p.bitrate,
              fps: p.fps,
              fpsDen: 1,
            })),
          }),
          // Without a key of its own (off chain, or keyless with a remote signer) the node has no
          // ticket sender and sends an empty payment (genPayment returns "").
          [PAYMENT_HEADER.toLowerCase()]: this.d.connections.ownKey
            ? encodeHeader("Payment", { sender: identity.address })
            : "",
        },
        Buffer.from(seg.data),
        { timeoutMs: httpTimeout },
      );
    } catch (err) {
      const why = callError("Post", segmentUrl, err);
      log(
        "E",
        "segment_rpc.go:553",
        `Unable to submit segment orch=${session.url} orch=${session.url} uploadDur=${goDuration(performance.now() - started)} err=${goQuote(why)}`,
      );
      return `header timeout: ${why}`;
    }
    const uploadDur = goDuration(performance.now() - started);
    if (answer.status !== 200) {
      const text = answer.body.toString("utf8");
      log(
        "E",
        "segment_rpc.go:576",
        `Error submitting segment statusCode=${answer.status} orch=${session.url} err=${goQuote(text)}`,
      );
      return text.trim();
    }
    log("I", "segment_rpc.go:588", `Uploaded segment orch=${session.url} dur=${uploadDur}`);
    let result: TranscodeResultMessage;
    try {
      result = decodeMessage("TranscodeResult", answer.body);
    } catch (err) {
      log(
        "E",
        "segment_rpc.go:606",
        `Unable to parse response for segment orch=${session.url} err=${goQuote((err as Error).message)}`,
      );
      return (err as Error).message;
    }
    if (result.error !== undefined && result.error !== "") {
      log(
        "E",
        "segment_rpc.go:620",
        `Transcode failed for segment orch=${session.url} err=${goQuote(result.error)}`,
      );
      return result.error;
    }
    const transcodeDur = goDuration(performance.now() - started);
    log(
      "I",
      "segment_rpc.go:669",
      `Successfully transcoded segment segName= seqNo=${seg.seq} orch=${session.url} dur=${transcodeDur}`,
    );
    // The node downloads each rendition from its URL (server/broadcast.go downloadResults), in
    // the order of the profiles it asked for.
    const urls = (result.data?.segments ?? []).map((x) => x.url);
    const renditions: { profile: VideoPreset; data: Uint8Array }[] = [];
    for (const [i, profile] of stream.profiles.slice(0, urls.length).entries()) {
      try {
        renditions.push({
          profile,
          data: new Uint8Array(await this.d.connections.download(urls[i]!, httpTimeout)),
        });
      } catch (err) {
        const why = (err as Error).message;
        log(
          "E",
          "broadcast.go:1299",
          `Download error with segment nonce=${stream.nonce} seqNo=${seg.seq}: ${why} (URL: ${urls[i]})`,
        );
        return why;
      }
    }
    return renditions;
  }
}
