// A gateway's live streams (server.LivepeerServer rtmpConnections): one per manifest id, HTTP
// pushed or RTMP, each with its HLS presentation and its orchestrator session. An HTTP-pushed
// stream ends when no segment arrived for httpPushTimeout (60 s; a watchdog looks once per
// period, so the end comes 60 to 120 s after the last segment), an RTMP stream when its connection
// closes. The end is the node's line "Ended stream with manifestID=<id> external manifestID=<id>"
// (server/mediaserver.go removeRTMPStream), and the stream leaves /status Manifests.
import { LivePresentation } from "../../media/hls-playlist.ts";
import type { VideoPreset } from "../../media/presets.ts";
import type { Rational } from "../../node/pricing/rational.ts";
import type { AuthTokenMessage } from "../../node/wire/messages.ts";
import type { GlogLevel } from "../glog.ts";
import type { SimulatorState } from "../state.ts";

/** server/mediaserver.go httpPushTimeout. */
export const HTTP_PUSH_TIMEOUT_MS = 60_000;

export interface OrchestratorSession {
  /** The address the gateway was given (its service URI, dialled as written). */
  url: string;
  /** From GetOrchestrator; its session id is the orchestrator's key for this stream. */
  authToken: AuthTokenMessage;
  price: Rational | undefined;
}

export interface Stream {
  manifestID: string;
  /** The manifest id of the ingest URL (differs when the auth webhook names another). */
  externalID: string;
  nonce: string;
  ingest: "http" | "rtmp";
  profiles: VideoPreset[];
  resolution: string;
  presentation: LivePresentation;
  lastUsed: number;
  sourceBytes: number;
  transcodedBytes: number;
  session?: OrchestratorSession;
  /** Orchestrators that failed this stream: tried again only when no other one is left. */
  suspended: Set<string>;
  /** Every session opened (orchestrator URL -> auth token), to end them with the stream. */
  opened: Map<string, AuthTokenMessage>;
}

type Log = (level: GlogLevel, where: string, message: string) => void;

export class StreamRegistry {
  private readonly streams = new Map<string, Stream>();
  private readonly external = new Map<string, string>();
  private readonly watchdogs = new Map<string, NodeJS.Timeout>();
  private readonly state: SimulatorState;
  private readonly pushTimeoutMs: number;
  private readonly log: Log;
  private readonly onEnded: (stream: Stream) => void;

  constructor(state: SimulatorState, pushTimeoutMs: number, log: Log, onEnded: (stream: Stream) => void) {
    this.state = state;
    this.pushTimeoutMs = pushTimeoutMs;
    this.log = log;
    this.onEnded = onEnded;
  }

  /** By the manifest id of a URL (an external id maps to the internal one). */
  find(manifestID: string): Stream | undefined {
    return this.streams.get(this.external.get(manifestID) ?? manifestID);
  }

  get count(): number {
    return this.streams.size;
  }

  all(): Stream[] {
    return [...this.streams.values()];
  }

  /** A new stream (one already live under that manifest id is returned instead). */
  register(
    init: Pick<Stream, "manifestID" | "externalID" | "nonce" | "ingest" | "profiles" | "resolution">,
  ): Stream {
    const existing = this.streams.get(init.manifestID);
    if (existing) return existing;
    const stream: Stream = {
      ...init,
      presentation: new LivePresentation(init.manifestID),
      lastUsed: Date.now(),
      sourceBytes: 0,
      transcodedBytes: 0,
      suspended: new Set(),
      opened: new Map(),
    };
    this.streams.set(stream.manifestID, stream);
    if (init.externalID !== init.manifestID) this.external.set(init.externalID, init.manifestID);
    this.state.liveSessions = this.streams.size;
    if (init.ingest === "http") this.watch(stream);
    return stream;
  }

  /** Ends a stream: the node's line, its orchestrator sessions torn down, its playlists gone. */
  end(externalID: string): boolean {
    const manifestID = this.external.get(externalID) ?? externalID;
    const stream = this.streams.get(manifestID);
    if (!stream) {
      this.log("W", "mediaserver.go:603", `Attempted to end unknown stream with manifestID=${externalID}`);
      return false;
    }
    clearInterval(this.watchdogs.get(manifestID));
    this.watchdogs.delete(manifestID);
    this.streams.delete(manifestID);
    this.external.delete(externalID);
    this.state.liveSessions = this.streams.size;
    this.log(
      "I",
      "mediaserver.go:609",
      `Ended stream with manifestID=${manifestID} external manifestID=${externalID}`,
    );
    this.onEnded(stream);
    return true;
  }

  stop(): void {
    for (const t of this.watchdogs.values()) clearInterval(t);
    this.watchdogs.clear();
    this.streams.clear();
    this.external.clear();
    this.state.liveSessions = 0;
  }

  private watch(stream: Stream): void {
    const timer = setInterval(() => {
      if (Date.now() - stream.lastUsed > this.pushTimeoutMs) this.end(stream.externalID);
    }, this.pushTimeoutMs);
    timer.unref();
    this.watchdogs.set(stream.manifestID, timer);
  }
}
