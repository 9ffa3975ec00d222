// The orchestrator's segment endpoint on its service port (server/segment_rpc.go ServeSegment; the
// wire format in segment-protocol.ts), and its memory object store under /stream/ where gateways
// download the renditions. Sessions are admitted against the limit; transcoding is a pass-through:
// every rendition asked for is the source segment itself (said once per session in the log), so
// no encoder is needed.
import type { IncomingMessage } from "node:http";
import { VIDEO_PRESETS } from "../media/presets.ts";
import { encodeMessage, type VideoProfileMessage } from "../node/wire/messages.ts";
import type { AuthTokens } from "./auth-tokens.ts";
import { clogMessage, goQuote, type LogContext } from "./clog.ts";
import { type Handler, sendText } from "./http-server.ts";
import { type InfoSource, orchestratorInfoMessage } from "./orchestrator-info-message.ts";
import type { OrchestratorSessions } from "./orchestrator-sessions.ts";
import type { RenditionStore } from "./rendition-store.ts";
import type { RouteContext } from "./route-context.ts";
import {
  decodePayment,
  decodeSegData,
  PAYMENT_HEADER,
  SEGMENT_HEADER,
  segmentHash,
} from "./segment-protocol.ts";

/** A segment is at most this big (the node reads at most common.MaxSegSize). */
export const MAX_SEGMENT_BYTES = 64 * 1024 * 1024;

const ZERO_ADDRESS = `0x${"0".repeat(40)}`;
/** common.MaxDuration: 5 minutes. */
const MAX_DURATION_MS = 5 * 60_000;

export async function readBody(req: IncomingMessage, limit = MAX_SEGMENT_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error(`body larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function clientIp(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
}

/** What an orchestrator's service port needs beyond the route context. */
export interface OrchestratorParts {
  info: InfoSource;
  tokens: AuthTokens;
  renditions: RenditionStore;
}

export function orchestratorSegmentRoutes(
  c: RouteContext,
  sessions: OrchestratorSessions,
  o: OrchestratorParts,
): Record<string, Handler> {
  return {
    "/segment": async (req, res) => {
      let context: LogContext = { extra: [["clientIP", clientIp(req)]] };
      const refuse = (status: number, text: string, where: string, message: string) => {
        c.log("E", where, clogMessage(context, message));
        req.resume();
        sendText(res, status, text);
      };
      const payment = decodePayment(req.headers[PAYMENT_HEADER.toLowerCase()] as string | undefined);
      if ("error" in payment)
        return refuse(402, payment.error, "segment_rpc.go:293", "Could not parse payment");
      const senderBytes = payment.ok.sender.length === 20 ? payment.ok.sender : Buffer.alloc(0);
      const sender = senderBytes.length === 20 ? `0x${senderBytes.toString("hex")}` : ZERO_ADDRESS;
      context = { extra: [...(context.extra ?? []), ["sender", sender]] };
      const credsFailed = (err: string) =>
        refuse(403, err, "segment_rpc.go:305", `Could not verify segment creds err=${goQuote(err)}`);
      const decoded = decodeSegData(req.headers[SEGMENT_HEADER.toLowerCase()] as string | undefined);
      if ("error" in decoded) return credsFailed(decoded.error);
      const seg = decoded.ok;
      // server/rpc.go coreSegMetadata: 0 means the default 2 s; beyond common.MaxDuration is refused.
      if (seg.duration < 0 || seg.duration > MAX_DURATION_MS) return credsFailed("invalid duration");
      const durationMs = seg.duration || 2000;
      const manifestID = seg.manifestId.toString("utf8");
      context = { standard: { manifestID }, extra: context.extra ?? [] };
      // On chain the segment's signature must recover to the payment's sender (verifySegCreds): a
      // segment with no sender (a gateway without a key of its own, e.g. a keyless one with a
      // remote signer) can never pass. Signatures of named senders are not checked.
      if (c.eth && (senderBytes.length === 0 || senderBytes.every((b) => b === 0))) {
        c.log("E", "segment_rpc.go:421", clogMessage(context, "Sig check failed"));
        return credsFailed("ErrSegSig");
      }
      if (!seg.authToken) return credsFailed("missing auth token");
      if (!o.tokens.verify(seg.authToken)) return credsFailed("invalid auth token");
      const sessionId = seg.authToken.sessionId;
      context = { standard: { manifestID, orchSessionID: sessionId }, extra: context.extra ?? [] };
      if (Number(seg.authToken.expiration) * 1000 < Date.now()) return credsFailed("expired auth token");
      const profiles = seg.fullProfiles3;
      const admission = sessions.admit(sessionId, manifestID);
      if (admission === "capped") {
        c.log(
          "E",
          "segment_rpc.go:447",
          clogMessage(context, `Cannot process manifest err=${goQuote("OrchestratorCapped")}`),
        );
        return credsFailed("OrchestratorCapped");
      }
      if (admission === "new") {
        c.log(
          "I",
          "simulator.go:8",
          clogMessage(
            context,
            `Simulated: new session ${c.state.currentSessions}/${c.state.sessionLimit}; pass-through transcoding: each rendition (${profiles.map((p) => p.name).join(",") || "none"}) is the source segment`,
          ),
        );
      }
      const info = await orchestratorInfoMessage(o.info, senderBytes, undefined);
      const body = await readBody(req);
      if (!segmentHash(body).equals(seg.hash)) {
        c.log("E", "segment_rpc.go:152", clogMessage(context, "Mismatched hash for body; rejecting"));
        return sendText(res, 403, "Forbidden");
      }
      const authority = (req.headers[":authority"] as string | undefined) ?? req.headers.host ?? "";
      const segments = profiles.map((p) => ({
        url: `https://${authority}${o.renditions.save(sessionId, p.name, seg.seq, body)}`,
        pixels: pixelsOf(p, durationMs),
      }));
      // The node keeps the token the gateway sent: new tokens come only from GetOrchestrator.
      const result = encodeMessage("TranscodeResult", {
        seq: seg.seq,
        data: { segments },
        info: { ...info, authToken: seg.authToken },
      });
      res.writeHead(200);
      res.end(result);
    },
    "/stream/": (req, res, url) => {
      const data = req.method === "GET" ? o.renditions.get(url.pathname) : undefined;
      if (!data) return sendText(res, 404, "404 page not found");
      res.writeHead(200, { "Content-Type": "video/MP2T", "Content-Length": data.length });
      res.end(data);
    },
  };
}

/** What the real node reports for an encoded rendition: width x height x frames. */
function pixelsOf(p: VideoProfileMessage, durationMs: number): number {
  const preset = VIDEO_PRESETS.get(p.name);
  const width = p.width || preset?.width || 0;
  const height = p.height || preset?.height || 0;
  const fps = p.fps ? p.fps / (p.fpsDen || 1) : (preset?.fps ?? 0);
  return width * height * Math.round((fps * durationMs) / 1000);
}
