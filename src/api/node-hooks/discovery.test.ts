import { describe, expect, it } from "vitest";
import { hookTokenDigest } from "../../schema/node-hooks.ts";
import { discoveryAnswer, hookAllowed } from "./discovery.ts";
import { type GatewayHooks, hooksFacts } from "./gateway-hooks-cache.ts";

const token = "a".repeat(64);
const gateway = (status: GatewayHooks["status"]): GatewayHooks => ({
  metadata: { name: "gw", namespace: "video" },
  status,
});

describe("who may call a gateway's hook", () => {
  it.each([
    ["the gateway's token", gateway({ hookTokenDigest: hookTokenDigest(token) }), token, true],
    ["another token", gateway({ hookTokenDigest: hookTokenDigest(token) }), "b".repeat(64), false],
    ["no token", gateway({ hookTokenDigest: hookTokenDigest(token) }), undefined, false],
    ["a gateway with no digest published yet", gateway({}), token, false],
    ["a malformed digest", gateway({ hookTokenDigest: "zz" }), token, false],
    ["no such gateway", undefined, token, false],
  ])("%s", (_, gw, presented, allowed) => {
    expect(hookAllowed(gw, presented)).toBe(allowed);
  });
});

describe("what -orchWebhookUrl answers", () => {
  it("lists the given orchestrators as the node expects, https by default", () => {
    expect(
      discoveryAnswer(
        gateway({
          orchestrators: [
            { name: "a", address: "a-0.a-pods.video.svc.cluster.local:8935", priceCompatible: true },
            { name: "b", address: "https://orch.example.com:8935" },
          ],
        }),
      ),
    ).toEqual([
      { address: "https://a-0.a-pods.video.svc.cluster.local:8935" },
      { address: "https://orch.example.com:8935" },
    ]);
  });

  it("answers an empty list when the gateway was given none", () => {
    expect(discoveryAnswer(gateway({}))).toEqual([]);
  });
});

describe("what the hooks cache keeps of a Gateway", () => {
  it("its token digest, given orchestrators and stream events; nothing else of its spec or status", () => {
    const kept = hooksFacts({
      metadata: { name: "gw", namespace: "video", uid: "u", resourceVersion: "7", labels: { a: "b" } },
      spec: { streamEvents: { enabled: true, userId: "alice" }, image: "x" } as never,
      status: { hookTokenDigest: "d".repeat(64), orchestrators: [], conditions: [] } as never,
    });
    expect(kept).toEqual({
      apiVersion: undefined,
      kind: undefined,
      metadata: { name: "gw", namespace: "video", uid: "u", resourceVersion: "7" },
      spec: { streamEvents: { enabled: true, userId: "alice" } },
      status: { hookTokenDigest: "d".repeat(64), orchestrators: [] },
    });
  });
});
