// The official `livepeer` SDK (3.5), unchanged, against our server: every webhook call it makes
// round-trips, its own request and response validation passes, and its errors carry our messages.
import { Livepeer } from "livepeer";
import { HTTPClient } from "livepeer/lib/http.js";
import { Events } from "livepeer/models/components/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installWebhookCrd, startTestApi, type TestApi } from "./api-harness.ts";
import { testNamespace } from "./support/cluster.ts";

let ns: Awaited<ReturnType<typeof testNamespace>>;
let api: TestApi;
let sdk: Livepeer;
/** Every answer the SDK got, as text on the wire (the SDK's parsed objects drop unknown fields). */
const wire: { method: string; url: string; status: number; text: string }[] = [];

beforeAll(async () => {
  await installWebhookCrd();
  ns = await testNamespace("api-sdk");
  api = await startTestApi(ns.name);
  sdk = new Livepeer({
    apiKey: await api.token({ sub: "sdk-user", projectId: "sdk-project" }),
    serverURL: api.url,
    httpClient: new HTTPClient({
      fetcher: async (input, init) => {
        const res = await fetch(input, init);
        const request = input instanceof Request ? input : undefined;
        wire.push({
          method: init?.method ?? request?.method ?? "GET",
          url: String(request?.url ?? input),
          status: res.status,
          text: await res.clone().text(),
        });
        return res;
      },
    }),
  });
});

afterAll(async () => {
  await api?.close();
  await ns?.remove();
});

describe("livepeer SDK against the webhook API", () => {
  it("creates, gets, lists, updates and deletes a webhook", async () => {
    const created = await sdk.webhook.create({
      name: "sdk hook",
      url: "https://example.com/hooks/livepeer",
      events: [Events.StreamStarted, Events.StreamIdle],
      sharedSecret: "s3cret-value",
      streamId: "stream-1",
    });
    expect(created.statusCode).toBe(200);
    const hook = created.webhook!;
    expect(hook).toMatchObject({
      name: "sdk hook",
      url: "https://example.com/hooks/livepeer",
      events: ["stream.started", "stream.idle"],
      streamId: "stream-1",
      kind: "webhook",
      userId: "sdk-user",
      projectId: "sdk-project",
    });
    expect(hook.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof hook.createdAt).toBe("number");
    // The answer on the wire, not the SDK's parse of it (which would drop a stray field).
    const answer = wire.find((w) => w.method === "POST" && new URL(w.url).pathname.endsWith("/webhook"));
    expect(answer?.status, JSON.stringify(wire.map((w) => `${w.method} ${w.url}`))).toBe(200);
    expect(answer?.text).toContain(hook.id);
    expect(answer?.text).not.toContain("s3cret-value");
    expect(JSON.stringify(hook)).not.toContain("s3cret-value");

    const got = await sdk.webhook.get(hook.id!);
    expect(got.webhook).toEqual(hook);

    const all = await sdk.webhook.getAll();
    expect(all.data?.map((w) => w.id)).toContain(hook.id);

    const updated = await sdk.webhook.update(
      { name: "renamed", url: "https://example.org/h", events: [Events.AssetReady] },
      hook.id!,
    );
    expect(updated.webhook).toMatchObject({
      id: hook.id,
      name: "renamed",
      url: "https://example.org/h",
      events: ["asset.ready"],
    });
    expect(updated.webhook?.streamId).toBeUndefined();
    expect(updated.webhook?.createdAt).toBe(hook.createdAt);

    const deleted = await sdk.webhook.delete(hook.id!);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.webhook?.id).toBe(hook.id);

    await expect(sdk.webhook.get(hook.id!)).rejects.toThrow(/not found/);
  });

  it("surfaces our error messages through the SDK's errors", async () => {
    const err = await sdk.webhook.create({ name: "bad", url: "http://127.0.0.1:9/x" }).then(
      () => undefined,
      (e: Error & { statusCode?: number; body?: string }) => e,
    );
    expect(err?.statusCode).toBe(422);
    expect(JSON.parse(err?.body ?? "{}").errors[0]).toMatch(/loopback/);
    expect(err?.message).toMatch(/loopback/);
  });

  it("refuses a wrong key through the SDK with 401", async () => {
    const stranger = new Livepeer({ apiKey: "not-a-jwt", serverURL: api.url });
    await expect(stranger.webhook.getAll()).rejects.toMatchObject({ statusCode: 401 });
  });
});
