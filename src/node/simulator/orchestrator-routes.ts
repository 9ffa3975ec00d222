// The orchestrator's segment endpoints on its service port (see segment-protocol.ts): sessions are
// admitted against the limit, and transcoding is a pass-through: every rendition asked for is the
// source segment itself (said once per session in the log), so no encoder is needed.
import type { IncomingMessage } from "node:http";
import { VIDEO_PRESETS } from "../media/presets.ts";
import { clogMessage, goQuote } from "./clog.ts";
import { type Handler, sendText } from "./http-server.ts";
import type { OrchestratorSessions } from "./orchestrator-sessions.ts";
import type { RouteContext } from "./route-context.ts";
import {
  decodePayment,
  decodeSegmentCreds,
  PAYMENT_HEADER,
  SEGMENT_HEADER,
  type TranscodeResult,
} from "./segment-protocol.ts";

/** A segment is at most this big (the node reads at most common.MaxSegSize). */
export const MAX_SEGMENT_BYTES = 64 * 1024 * 1024;

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

export function orchestratorSegmentRoutes(
  c: RouteContext,
  sessions: OrchestratorSessions,
): Record<string, Handler> {
  return {
    "/segment": async (req, res) => {
      const body = await readBody(req);
      const creds = decodeSegmentCreds(req.headers[SEGMENT_HEADER.toLowerCase()] as string | undefined);
      const sender = decodePayment(req.headers[PAYMENT_HEADER.toLowerCase()] as string | undefined).Sender;
      const extra = [
        ["clientIP", clientIp(req)],
        ["sender", sender],
      ] as const;
      if (!creds) {
        c.log(
          "E",
          "segment_rpc.go:305",
          clogMessage({ extra }, `Could not verify segment creds err=${goQuote("ErrorSegEncoding")}`),
        );
        return sendText(res, 403, "ErrorSegEncoding");
      }
      const context = {
        standard: { manifestID: creds.ManifestID, orchSessionID: creds.AuthToken.SessionId },
        extra,
      };
      const admission = sessions.admit(creds.AuthToken.SessionId, creds.ManifestID);
      if (admission === "capped") {
        const err = `err=${goQuote("OrchestratorCapped")}`;
        c.log("E", "segment_rpc.go:447", clogMessage(context, `Cannot process manifest ${err}`));
        c.log("E", "segment_rpc.go:305", clogMessage(context, `Could not verify segment creds ${err}`));
        return sendText(res, 403, "OrchestratorCapped");
      }
      if (admission === "new") {
        c.log(
          "I",
          "simulator.go:8",
          clogMessage(
            context,
            `Simulated: new session ${c.state.currentSessions}/${c.state.sessionLimit}; pass-through transcoding: each rendition (${creds.Profiles.join(",") || "none"}) is the source segment`,
          ),
        );
      }
      const result: TranscodeResult = {
        Seq: creds.Seq,
        Result: {
          Data: {
            Segments: creds.Profiles.map((name) => ({
              Profile: name,
              Pixels: pixelsOf(name, creds.Duration),
              Data: body.toString("base64"),
            })),
          },
        },
      };
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(result));
    },
    "/endTranscodingSession": async (req, res) => {
      let sessionId: unknown;
      try {
        sessionId = (
          JSON.parse((await readBody(req, 64 * 1024)).toString("utf8")) as {
            AuthToken?: { SessionId?: unknown };
          }
        ).AuthToken?.SessionId;
      } catch {
        sessionId = undefined;
      }
      if (typeof sessionId !== "string") return sendText(res, 400, "Invalid auth token");
      sessions.end(sessionId, "ended by the gateway");
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end("{}");
    },
  };
}

/** What the real node would report for an encoded rendition: width x height x frames. */
function pixelsOf(preset: string, durationMs: number): number {
  const p = VIDEO_PRESETS.get(preset);
  return p ? p.width * p.height * Math.round((p.fps * durationMs) / 1000) : 0;
}
