// The gateway's HTTP port: HTTP ingest (PUT or POST /live/<manifestID>/<seq>.ts, as
// server/mediaserver.go HandlePush: the first segment of an unknown manifest id opens the stream,
// every segment is transcoded before the answer) and HLS playback (/stream/<manifestID>.m3u8,
// /stream/<manifestID>/<rendition>.m3u8, /stream/<manifestID>/<rendition>/<seq>.ts).

import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { clogMessage, goDuration, goQuote, type LogContext } from "../clog.ts";
import type { GlogLevel } from "../glog.ts";
import { type Handler, sendText } from "../http-server.ts";
import { readBody } from "../orchestrator-routes.ts";
import type { Gateway } from "./gateway.ts";

type Log = (level: GlogLevel, where: string, message: string) => void;

const INGEST_FORMATS = new Set([".ts", ".mp4"]);

/** The node's stream id of a path: "live/" and a leading "stream/" removed, then <manifestID>/<rendition>. */
export function parseStreamId(requestPath: string): { manifestID: string; rendition: string } {
  const withoutExt = requestPath.slice(0, requestPath.length - path.extname(requestPath).length);
  const clean = withoutExt.replace(/^[ /]*(stream\/)?|(live\/)?/g, "");
  const slash = clean.indexOf("/");
  return slash < 0
    ? { manifestID: clean, rendition: "" }
    : { manifestID: clean.slice(0, slash), rendition: clean.slice(slash + 1) };
}

/** server/mediaserver.go getRemoteAddr: X-Forwarded-For's first entry or the peer, without the port. */
function remoteAddr(req: IncomingMessage): string {
  const forwarded = req.headers["x-forwarded-for"];
  if (typeof forwarded === "string" && forwarded !== "") {
    const first = forwarded.split(",")[0]!.trim();
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(first);
    return m && (first.startsWith("[") || !m[1]!.includes(":")) ? m[1]! : first;
  }
  return (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
}

/** Enough of an MPEG-TS check to refuse what ffmpeg could not probe: sync bytes every 188 bytes. */
function looksLikeTransportStream(data: Uint8Array): boolean {
  if (data.length < 188 || data[0] !== 0x47) return false;
  for (let at = 188; at < Math.min(data.length, 188 * 8); at += 188) if (data[at] !== 0x47) return false;
  return true;
}

export function gatewayHttpRoutes(gateway: Gateway, log: Log, httpIngest: boolean): Record<string, Handler> {
  return {
    ...(httpIngest ? { "/live/": (req, res, url) => handlePush(gateway, log, req, res, url) } : {}),
    "/stream/": (_req, res, url) => serveHls(gateway, res, url),
  };
}

async function handlePush(
  gateway: Gateway,
  log: Log,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const started = performance.now();
  const host = req.headers.host ?? "";
  const ingestUrl = `http://${host}${url.pathname}`;
  const errorOut = (status: number, message: string) => {
    log("E", "mediaserver.go:733", `${message} statusCode=${status}`);
    sendText(res, status, message);
  };
  if (req.method !== "POST" && req.method !== "PUT") {
    return errorOut(405, `http push request wrong method=${req.method} url=${url.pathname} host=${host}`);
  }
  const body = await readBody(req);
  const ext = path.extname(url.pathname);
  if (!INGEST_FORMATS.has(ext)) return errorOut(400, `ignoring file extension: ${ext}`);
  const { manifestID } = parseStreamId(url.pathname);
  const ip = remoteAddr(req);
  const context: LogContext = { standard: manifestID ? { manifestID } : {}, extra: [["clientIP", ip]] };
  const header = (name: string) => (req.headers[name] as string | undefined) ?? "";
  log(
    "I",
    "mediaserver.go:781",
    clogMessage(
      context,
      `Got push request at url=${ingestUrl} ua=${header("user-agent")} addr=${ip} bytes=${body.length} dur=${header("content-duration")} resolution=${header("content-resolution")} slice-from=${header("content-slice-from")} slice-to=${header("content-slice-to")}`,
    ),
  );
  if (manifestID === "") return errorOut(400, `Bad URL url=${ingestUrl}`);
  if (ext === ".ts" && !looksLikeTransportStream(body))
    return errorOut(422, `Error getting codec info url=${ingestUrl}`);

  let stream = gateway.streams.find(manifestID);
  if (!stream) {
    const opened = await gateway.openStream({
      ingestUrl,
      externalID: manifestID,
      ingest: "http",
      resolution: header("content-resolution"),
      context,
    });
    if ("refused" in opened) {
      return errorOut(
        opened.refused === "forbidden" ? 403 : 500,
        `Could not create stream ID: url=${ingestUrl}`,
      );
    }
    stream = opened.stream;
  }
  const streamContext: LogContext = {
    standard: { ...context.standard, manifestID: stream.manifestID, nonce: stream.nonce },
    extra: context.extra ?? [],
  };
  const finished = () =>
    log(
      "I",
      "mediaserver.go:960",
      clogMessage(
        streamContext,
        `Finished push request at url=${ingestUrl} ua=${header("user-agent")} addr=${req.socket.remoteAddress}:${req.socket.remotePort} bytes=${body.length} dur=${header("content-duration")} resolution=${header("content-resolution")} took=${goDuration(performance.now() - started)}`,
      ),
    );
  const seq = Number.parseInt(path.basename(url.pathname, ext), 10);
  const segContext: LogContext = {
    ...streamContext,
    standard: { ...streamContext.standard, seqNo: Number.isNaN(seq) || seq < 0 ? 0 : seq },
  };
  let durationMs = Number.parseInt(header("content-duration"), 10);
  if (Number.isNaN(durationMs)) {
    durationMs = 2000;
    log("I", "mediaserver.go:974", "Missing duration; filling in a default of 2000ms");
  }
  const outcome = await gateway.processSegment(
    stream,
    { seq: Number.isNaN(seq) || seq < 0 ? 0 : seq, data: body, durationMs },
    segContext,
  );
  if (outcome.kind === "failed") {
    finished();
    return errorOut(
      500,
      `http push error processing segment url=${ingestUrl} manifestID=${stream.manifestID} err=${goQuote(outcome.error)}`,
    );
  }
  if (outcome.kind === "no-sessions" || (outcome.renditions.length === 0 && stream.profiles.length > 0)) {
    log(
      "E",
      "mediaserver.go:1037",
      clogMessage(
        segContext,
        `No sessions available name=${path.basename(url.pathname)} url=${ingestUrl} statusCode=503`,
      ),
    );
    finished();
    return sendText(res, 503, "No sessions available");
  }
  log(
    "I",
    "mediaserver.go:1053",
    clogMessage(
      segContext,
      `Finished transcoding push request at url=${ingestUrl} took=${goDuration(performance.now() - started)}`,
    ),
  );
  finished();
  if (req.headers.accept !== "multipart/mixed") {
    res.writeHead(200);
    res.end();
    return;
  }
  // The renditions themselves, one part each, as the node answers an Accept: multipart/mixed push.
  const boundary = randomBytes(8).toString("hex");
  res.writeHead(200, { "Content-Type": `multipart/mixed; boundary=${boundary}` });
  for (const { profile, data } of outcome.renditions) {
    const name = `"${profile.name}_${seq}.ts"`;
    res.write(
      `--${boundary}\r\nContent-Type: video/mp2t; name=${name}\r\nContent-Length: ${data.length}\r\n` +
        `Content-Disposition: attachment; filename=${name}\r\nRendition-Name: ${profile.name}\r\n\r\n`,
    );
    res.write(data);
    res.write("\r\n");
  }
  res.end(`--${boundary}--\r\n`);
}

function serveHls(gateway: Gateway, res: ServerResponse, url: URL): void {
  const rest = url.pathname.slice("/stream/".length);
  const ext = path.extname(rest);
  const parts = rest.slice(0, rest.length - ext.length).split("/");
  const stream = gateway.streams.find(parts[0] ?? "");
  let body: string | Uint8Array | undefined;
  let contentType = "";
  if (stream && ext === ".m3u8" && parts.length <= 2) {
    body =
      parts.length === 1
        ? stream.presentation.masterPlaylist()
        : stream.presentation.mediaPlaylist(parts[1]!);
    contentType = "application/x-mpegURL";
  } else if (stream && ext === ".ts" && parts.length === 3) {
    body = stream.presentation.segment(parts[1]!, Number(parts[2]));
    contentType = "video/mp2t";
  }
  if (body === undefined) {
    sendText(res, 404, "404 page not found");
    return;
  }
  res.writeHead(200, {
    "Access-Control-Allow-Origin": "*",
    "Cache-Control": "no-cache",
    "Content-Type": contentType,
  });
  res.end(body);
}
