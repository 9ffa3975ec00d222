import { describe, expect, it } from "vitest";
import type { Loose } from "../../schema/custom-resource.ts";
import type { StoredWebhook } from "../../schema/webhook.ts";
import { labelValue, newWebhookResource, tenantOf, toApiWebhook, webhookSpec } from "./webhook-resource.ts";

const tenant = { userId: "alice", projectId: "p1" };

describe("newWebhookResource + toApiWebhook", () => {
  it("round-trips the spec's fields and keeps the exact createdAt", () => {
    const spec = webhookSpec(
      { name: "n", url: "https://e.com", events: ["stream.idle", "stream.idle"], streamId: "s" },
      tenant,
      { name: "sec", key: "sharedSecret" },
    );
    const r = newWebhookResource("id-1", "ns", 1234567890123, spec, tenant);
    expect(r.metadata?.labels).toEqual({ "livepeer.org/user-id": "alice", "livepeer.org/project-id": "p1" });
    expect(r.metadata?.annotations).toEqual({ "livepeer.org/created-at-ms": "1234567890123" });
    expect(toApiWebhook(r)).toEqual({
      id: "id-1",
      name: "n",
      kind: "webhook",
      userId: "alice",
      projectId: "p1",
      createdAt: 1234567890123,
      url: "https://e.com",
      events: ["stream.idle"],
      streamId: "s",
    });
  });

  it("never exposes the secret reference", () => {
    const r = newWebhookResource(
      "i",
      "ns",
      1,
      webhookSpec({ name: "n", url: "https://e.com" }, tenant, { name: "x", key: "k" }),
      tenant,
    );
    expect(JSON.stringify(toApiWebhook(r))).not.toContain("sharedSecretRef");
  });
});

describe("toApiWebhook of hand-written resources", () => {
  // Read back from a cluster: objects the current CRD would refuse (an unknown event kind, a
  // time as a string) may have been admitted under an older one.
  const handMade = (o: Loose<StoredWebhook>): Loose<StoredWebhook> => ({
    metadata: {
      name: "hand",
      creationTimestamp: "2026-01-02T03:04:05Z",
      labels: { "livepeer.org/user-id": "bob" },
    },
    spec: { name: "h", url: "https://e.com" },
    ...o,
  });

  it("takes the tenant from labels, the default project, and createdAt from creationTimestamp", () => {
    expect(toApiWebhook(handMade({}))).toMatchObject({
      userId: "bob",
      projectId: "default",
      createdAt: Date.parse("2026-01-02T03:04:05Z"),
    });
  });

  it("drops unknown event kinds and maps the delivery status to ms", () => {
    const w = toApiWebhook(
      handMade({
        spec: { name: "h", url: "https://e.com", events: ["stream.started", "made.up"] },
        status: {
          lastTriggeredAt: "2026-01-02T03:04:05Z",
          lastFailure: { timestamp: 5, error: "timeout", statusCode: 503, response: "busy" },
          conditions: [],
        },
      }),
    );
    expect(w.events).toEqual(["stream.started"]);
    expect(w.status).toEqual({
      lastTriggeredAt: Date.parse("2026-01-02T03:04:05Z"),
      lastFailure: { timestamp: 5, error: "timeout", statusCode: 503, response: "busy" },
    });
  });

  it("has no tenant without a user (admins only)", () => {
    expect(tenantOf(handMade({ metadata: { name: "x" } }))).toBeUndefined();
  });
});

describe("labelValue", () => {
  it("keeps valid label values and hashes the others into valid ones", () => {
    expect(labelValue("alice")).toBe("alice");
    for (const id of ["auth0|123", "a".repeat(64), "user@example.com", "-x"]) {
      const v = labelValue(id);
      expect(v).toMatch(/^sha256-[0-9a-f]{56}$/);
      expect(v.length).toBeLessThanOrEqual(63);
      expect(labelValue(id)).toBe(v);
    }
  });
});
