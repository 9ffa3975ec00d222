// What `push-stream` says about a gateway's answers: one line per segment, and why nothing came
// out when nothing did (the gateway's own answer, and where to look next). Pure.

/** One segment's outcome: an HTTP-ingest answer, or a segment seen in the HLS playlist (RTMP). */
export interface SegmentAnswer {
  seq: number;
  /** HTTP status of the push (200: transcoded); undefined for RTMP, where only the playlist tells. */
  status?: number;
  body?: string;
  ms?: number;
  /** Renditions the segment appeared in (RTMP: from the media playlists). */
  renditions?: string[];
}

export function segmentLine(a: SegmentAnswer): string {
  if (a.status === undefined)
    return `segment ${a.seq}: in the HLS playlist (${(a.renditions ?? []).join(", ")})`;
  const took = a.ms === undefined ? "" : ` in ${Math.round(a.ms)} ms`;
  const said = a.body?.trim() ? `: ${a.body.trim().slice(0, 300)}` : "";
  return `segment ${a.seq}: ${a.status} ${a.status === 200 ? "transcoded" : "refused"}${took}${said}`;
}

export const transcoded = (answers: SegmentAnswer[]) =>
  answers.filter((a) => (a.status === undefined ? (a.renditions ?? []).length > 0 : a.status === 200)).length;

/** Why no segment was transcoded, in the gateway's words, with the next step; undefined when some were. */
export function nothingTranscoded(answers: SegmentAnswer[], where: string): string | undefined {
  if (transcoded(answers) > 0) return undefined;
  const last = [...answers].reverse().find((a) => a.status !== undefined);
  if (!last) {
    return `no segment reached the HLS playlist of ${where}: look at the gateway's log (kubectl logs <gateway>-0) for why`;
  }
  const said = `the gateway answered ${last.status}${last.body?.trim() ? ` "${last.body.trim().slice(0, 300)}"` : ""} (segment ${last.seq})`;
  if (last.status === 503) {
    return `no segment was transcoded: ${said}: it found no orchestrator that took the work. Check kubectl get gw (ORCHS, PRICE) and kubectl describe gw <name> (PriceCompatible, Ready)`;
  }
  if (last.status === 403 || last.status === 404) {
    return `no segment was transcoded: ${said}: is this the gateway's HTTP port with HTTP ingest on (spec.ingest.http)?`;
  }
  return `no segment was transcoded: ${said}; the gateway's log says more (kubectl logs <gateway>-0)`;
}
