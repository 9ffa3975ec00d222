import { describe, expect, it } from "vitest";
import { hookTokenDigest } from "../../schema/node-hooks.ts";
import type { GatewayHooks } from "./gateway-hooks-cache.ts";
import {
  idleEvent,
  ingestStreamOf,
  stableEventId,
  startedEvent,
  streamEventTenant,
} from "./stream-events.ts";

describe("the stream a -authWebhookUrl call opens (the node's parseStreamID)", () => {
  it.each([
    [
      "HTTP push, first segment",
      "http://10.0.0.5:8935/live/demo/0.ts",
      { streamId: "demo", protocol: "http" },
    ],
    ["HTTP push of an mp4", "http://gw:8935/live/demo/12.mp4", { streamId: "demo", protocol: "http" }],
    ["RTMP publish", "rtmp://127.0.0.1:1935/live/demo", { streamId: "demo", protocol: "rtmp" }],
    ["RTMP with a stream key", "rtmp://gw:1935/live/demo/secret-key", { streamId: "demo", protocol: "rtmp" }],
    ["RTMP under /stream/", "rtmp://gw:1935/stream/demo", { streamId: "demo", protocol: "rtmp" }],
    ["an escaped name", "http://gw:8935/live/my%20show/0.ts", { streamId: "my show", protocol: "http" }],
    ["a recording read (not a new stream)", "http://gw:8935/recordings/demo/index.m3u8", undefined],
    ["a path-only URL (taken as HTTP ingest)", "/live/demo/0.ts", { streamId: "demo", protocol: "http" }],
    ["no name", "http://gw:8935/live/", undefined],
    ["not a string", 42, undefined],
    ["another scheme", "https://gw/live/demo/0.ts", undefined],
  ])("%s: %s", (_, url, expected) => {
    expect(ingestStreamOf(url)).toEqual(expected);
  });
});

const gateway = (streamEvents?: NonNullable<GatewayHooks["spec"]>["streamEvents"]): GatewayHooks => ({
  metadata: { name: "gw", namespace: "video", uid: "uid-1" },
  spec: { streamEvents },
  status: { hookTokenDigest: hookTokenDigest("t") },
});

describe("whose webhooks get a gateway's stream events", () => {
  it.each([
    ["enabled with a user", { enabled: true, userId: "alice" }, { userId: "alice", projectId: "default" }],
    [
      "enabled with a user and project",
      { enabled: true, userId: "alice", projectId: "p1" },
      { userId: "alice", projectId: "p1" },
    ],
    ["disabled", { enabled: false, userId: "alice" }, undefined],
    ["absent", undefined, undefined],
  ])("%s", (_, events, tenant) => {
    expect(streamEventTenant(gateway(events))).toEqual(tenant);
  });
});

describe("stable event ids", () => {
  const gw = gateway({ enabled: true, userId: "alice" });
  const tenant = { userId: "alice", projectId: "default" };
  const stream = { streamId: "demo", protocol: "http" as const };
  const end = {
    manifestID: "demo",
    externalManifestID: "demo",
    pod: "gw-0",
    at: "2026-11-24T15:02:03.456789012Z",
  };

  it("are UUID-shaped and the same for the same parts", () => {
    expect(stableEventId("a", "b")).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(stableEventId("a", "b")).toBe(stableEventId("a", "b"));
    expect(stableEventId("a", "b")).not.toBe(stableEventId("ab", ""));
  });

  it("stream.started: one id per (gateway, stream, start); the stream id users put in streamId", () => {
    const e = startedEvent(gw, tenant, stream, 1000);
    expect(e).toMatchObject({
      userId: "alice",
      projectId: "default",
      kind: "stream.started",
      streamId: "demo",
      stream: { id: "demo", name: "demo" },
      payload: { gateway: { namespace: "video", name: "gw" }, protocol: "http" },
      createdAt: 1000,
    });
    expect(startedEvent(gw, tenant, stream, 1000).id).toBe(e.id);
    expect(startedEvent(gw, tenant, stream, 2000).id).not.toBe(e.id);
    expect(startedEvent(gw, tenant, { ...stream, streamId: "other" }, 1000).id).not.toBe(e.id);
    const recreated = { ...gw, metadata: { ...gw.metadata, uid: "uid-2" } };
    expect(startedEvent(recreated, tenant, stream, 1000).id).not.toBe(e.id);
  });

  it("stream.idle: one id per end line (pod and exact time), at the line's time", () => {
    const e = idleEvent(gw, tenant, end);
    expect(e).toMatchObject({
      kind: "stream.idle",
      streamId: "demo",
      stream: { id: "demo", name: "demo" },
      payload: { gateway: { namespace: "video", name: "gw" }, pod: "gw-0" },
      createdAt: Date.parse("2026-11-24T15:02:03.456Z"),
    });
    expect(idleEvent(gw, tenant, { ...end }).id).toBe(e.id);
    expect(idleEvent(gw, tenant, { ...end, at: "2026-11-24T15:02:03.456789013Z" }).id).not.toBe(e.id);
    expect(idleEvent(gw, tenant, { ...end, pod: "gw-1" }).id).not.toBe(e.id);
    expect(e.id).not.toBe(startedEvent(gw, tenant, stream, Date.parse(end.at)).id);
  });

  it("stream.idle names the stream by the ingest URL's id (external), not the node's internal one", () => {
    expect(idleEvent(gw, tenant, { ...end, manifestID: "internal" }).streamId).toBe("demo");
  });
});
