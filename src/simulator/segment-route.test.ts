// POST /segment on a simulated orchestrator's service port as server/segment_rpc.go answers it,
// driven with the wire package's own encoder over TLS/HTTP/2: a protobuf TranscodeResult whose
// URLs serve each rendition, and the node's refusals (status and http.Error text) for what it
// refuses.
import { afterEach, describe, expect, it } from "vitest";
import { TestStream } from "../media/test-stream.ts";
import { NodeConnection } from "../node/wire/connection.ts";
import { type AuthTokenMessage, decodeMessage } from "../node/wire/messages.ts";
import { encodeHeader, segmentHash } from "./segment-protocol.ts";
import type { NodeSimulator } from "./simulator.ts";
import { getOrchestrator, loopbackOrchestrator } from "./testing/wire.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function orchestrator(
  ...flags: string[]
): Promise<{ sim: NodeSimulator; lines: string[]; c: NodeConnection }> {
  const { sim, lines } = await loopbackOrchestrator(...flags);
  const c = new NodeConnection(sim.urls.http!, "any");
  cleanup.push(
    () => sim.stop(),
    () => c.close(),
  );
  return { sim, lines, c };
}

const PROFILES = [
  { name: "P240p30fps16x9", width: 426, height: 240, bitrate: 600_000, fps: 30, fpsDen: 1 },
  { name: "P360p30fps16x9", width: 640, height: 360, bitrate: 1_200_000, fps: 30, fpsDen: 1 },
];

function segmentHeaders(
  token: AuthTokenMessage | undefined,
  body: Buffer,
  overrides: { hash?: Buffer; duration?: number } = {},
) {
  return {
    "content-type": "video/MP2T",
    "livepeer-segment": encodeHeader("SegData", {
      manifestId: Buffer.from("demo"),
      seq: 7,
      hash: overrides.hash ?? segmentHash(body),
      duration: overrides.duration ?? 2000,
      ...(token ? { authToken: token } : {}),
      fullProfiles3: PROFILES,
    }),
    "livepeer-payment": encodeHeader("Payment", {
      sender: Buffer.from("3333333333333333333333333333333333333333", "hex"),
    }),
  };
}

const segment = () => Buffer.from(new TestStream({ segmentSeconds: 2 }).segment(0));

describe("POST /segment on the orchestrator's service port", () => {
  it("answers a protobuf TranscodeResult: one URL per rendition serving it, pixels, the OrchestratorInfo with the same token", async () => {
    const o = await orchestrator();
    const { authToken } = await getOrchestrator(o.sim.urls.http!);
    const body = segment();
    const r = await o.c.request("POST", "/segment", segmentHeaders(authToken, body), body);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBeUndefined(); // the node writes the bytes without one
    const result = decodeMessage("TranscodeResult", r.body);
    expect(result.seq).toBe("7");
    expect(result.info?.authToken).toEqual(authToken);
    const segments = result.data!.segments;
    expect(segments.map((s) => s.pixels)).toEqual([String(426 * 240 * 60), String(640 * 360 * 60)]);
    for (const [i, s] of segments.entries()) {
      const url = new URL(s.url);
      expect(url.origin).toBe(o.sim.urls.http);
      expect(url.pathname).toBe(`/stream/${authToken!.sessionId}/${PROFILES[i]!.name}/7.ts`);
      const download = await o.c.request("GET", url.pathname, {}, undefined);
      expect(download.status).toBe(200);
      expect(download.body.equals(body)).toBe(true);
    }
    expect(JSON.parse((await o.c.request("GET", "/status", {}, undefined)).body.toString())).toMatchObject({
      Simulated: true,
    });
    const state = (await fetch(`${o.sim.urls.cli}/__sim/state`).then((x) => x.json())) as {
      currentSessions: number;
    };
    expect(state.currentSessions).toBe(1);
  });

  it("refuses as the node does: payment, credentials, token, hash, duration", async () => {
    const o = await orchestrator();
    const { authToken } = await getOrchestrator(o.sim.urls.http!);
    const body = segment();
    const post = async (headers: Record<string, string>) => {
      const r = await o.c.request("POST", "/segment", headers, body);
      return { status: r.status, text: r.body.toString("utf8") };
    };
    const good = segmentHeaders(authToken, body);
    expect(await post({ ...good, "livepeer-payment": "not base64!" })).toMatchObject({ status: 402 });
    expect(await post({ ...good, "livepeer-segment": "not base64!" })).toEqual({
      status: 403,
      text: "ErrorSegEncoding\n",
    });
    expect(await post(segmentHeaders(undefined, body))).toEqual({
      status: 403,
      text: "missing auth token\n",
    });
    expect(await post(segmentHeaders({ ...authToken!, token: Buffer.alloc(32) }, body))).toEqual({
      status: 403,
      text: "invalid auth token\n",
    });
    expect(await post(segmentHeaders(authToken, body, { duration: -1 }))).toEqual({
      status: 403,
      text: "invalid duration\n",
    });
    expect(await post(segmentHeaders(authToken, body, { hash: Buffer.alloc(32) }))).toEqual({
      status: 403,
      text: "Forbidden\n",
    });
    expect(o.lines.join("\n")).toMatch(
      /sender=0x3{40} Could not verify segment creds err="invalid auth token"/,
    );
    expect(o.lines.join("\n")).toContain("Mismatched hash for body; rejecting");
  });
});
