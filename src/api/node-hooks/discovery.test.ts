import { describe, expect, it } from "vitest";
import { hookTokenDigest } from "../../schema/node-hooks.ts";
import { capsOf, discoveryAnswer, hookAllowed } from "./discovery.ts";
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

describe("discovery filtered by the SDK's caps (OR over <pipeline>/<model>)", () => {
  const given = gateway({
    orchestrators: [
      { name: "live", address: "live:8935", capabilities: ["live-video-to-video/streamdiffusion"] },
      {
        name: "both",
        address: "both:8935",
        capabilities: ["text-to-image/stabilityai/sd-turbo", "live-video-to-video/comfyui"],
      },
      { name: "video", address: "video:8935" },
    ],
  });
  it.each([
    [
      "no caps: every given orchestrator (the node's own -orchWebhookUrl call)",
      [],
      ["live", "both", "video"],
    ],
    ["one live app", ["live-video-to-video/streamdiffusion"], ["live"]],
    [
      "two caps are OR",
      ["live-video-to-video/streamdiffusion", "live-video-to-video/comfyui"],
      ["live", "both"],
    ],
    ["a batch model", ["text-to-image/stabilityai/sd-turbo"], ["both"]],
    ["an app nobody offers", ["live-video-to-video/scope"], []],
    ["the pipeline alone matches no model", ["live-video-to-video"], []],
  ])("%s", (_, caps, names) => {
    expect(discoveryAnswer(given, caps).map((o) => o.address)).toEqual(names.map((n) => `https://${n}:8935`));
  });

  it.each([
    [undefined, []],
    ["live-video-to-video/sd", ["live-video-to-video/sd"]],
    [
      ["live-video-to-video/sd", " ", "text-to-image/a/b"],
      ["live-video-to-video/sd", "text-to-image/a/b"],
    ],
  ])("the caps query %j reads as %j", (query, caps) => {
    expect(capsOf(query)).toEqual(caps);
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
