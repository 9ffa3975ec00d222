// RTMP ingest of the simulated gateway (the node's LPMS RTMP server): publishing to
// rtmp://<host>:<rtmp port>/live/<name> opens the stream as HTTP ingest does (the auth webhook
// gets {"url": "rtmp://<host>:<port>/live/<name>"}), the node's "Video Created With ManifestID"
// line marks its start, the media is cut into 2 s MPEG-TS segments at keyframes, each processed in
// order like a pushed segment, and closing the connection ends the stream ("Ended stream ...").
import type { Server } from "node:net";
import { RtmpSegmenter } from "../../media/rtmp/segmenter.ts";
import { createRtmpServer, type PublishDecision, type PublishRequest } from "../../media/rtmp/server.ts";
import type { GlogLevel } from "../glog.ts";
import type { Gateway } from "./gateway.ts";
import { parseStreamId } from "./http-routes.ts";

type Log = (level: GlogLevel, where: string, message: string) => void;

export function gatewayRtmpServer(gateway: Gateway, log: Log): Server {
  return createRtmpServer(
    (request) => publish(gateway, log, request),
    (err) => log("E", "simulator.go:13", `Simulated: RTMP connection dropped: ${err.message}`),
  );
}

async function publish(gateway: Gateway, log: Log, request: PublishRequest): Promise<PublishDecision> {
  const { manifestID } = parseStreamId(new URL(request.url).pathname);
  if (!manifestID) return { refused: `no stream name in ${request.url}` };
  if (gateway.streams.find(manifestID)) return { refused: `a stream named ${manifestID} is already live` };
  const opened = await gateway.openStream({
    ingestUrl: request.url,
    externalID: manifestID,
    ingest: "rtmp",
    resolution: "",
    context: {},
  });
  if ("refused" in opened) return { refused: opened.message };
  const stream = opened.stream;
  log("I", "mediaserver.go:464", `\n\nVideo Created With ManifestID: ${stream.manifestID}\n\n`);
  let chain: Promise<unknown> = Promise.resolve();
  const segmenter = new RtmpSegmenter({
    onSegment: (seg) => {
      chain = chain.then(() =>
        gateway.processSegment(
          stream,
          { seq: seg.seq, data: seg.data, durationMs: seg.durationMs },
          { standard: { manifestID: stream.manifestID, nonce: stream.nonce, seqNo: seg.seq } },
        ),
      );
    },
    note: (message) => log("W", "simulator.go:12", `Simulated: RTMP stream ${stream.manifestID}: ${message}`),
  });
  return {
    session: {
      video: (payload, timestamp) => {
        stream.lastUsed = Date.now();
        segmenter.video(payload, timestamp);
      },
      audio: (payload, timestamp) => segmenter.audio(payload, timestamp),
      metadata: (values) => {
        const { width, height } = values;
        if (typeof width === "number" && typeof height === "number") stream.resolution = `${width}x${height}`;
      },
      end: () => {
        segmenter.end();
        void chain.finally(() => gateway.streams.end(stream.externalID));
      },
    },
  };
}
