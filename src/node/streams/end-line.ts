// The end of a stream as a gateway node tells it: go-livepeer has no end-of-stream webhook, only
// the line server/mediaserver.go removeRTMPStream logs (clog.Infof, so possibly after clog's
// context prefix) when an RTMP stream unpublishes or an HTTP-pushed one had no segment for 60 s:
//   I1124 15:02:03.456789       1 mediaserver.go:609] Ended stream with manifestID=<id> external manifestID=<ext>
// `<ext>` is the manifest id of the ingest URL (/live/<ext>/..., rtmp://host/live/<ext>), `<id>` the
// node's own (the same unless -authWebhookUrl answered another manifestID).

export interface EndedStream {
  manifestID: string;
  externalManifestID: string;
}

const ENDED = /\bEnded stream with manifestID=(\S+) external manifestID=(\S+)\s*$/;

/** The ended stream a log line names, or undefined for any other line. */
export function endedStreamOf(line: string): EndedStream | undefined {
  const m = ENDED.exec(line);
  return m ? { manifestID: m[1]!, externalManifestID: m[2]! } : undefined;
}
