// A webhook created through the API (its Service's ClusterIP, from inside the cluster) is stored
// as a Webhook resource the controller adopts, and an event posted to the API's intake reaches
// the suite's receiver (by its Service's DNS name, so the cluster's DNS and the API's
// delivery.allowCidrs for the Service range are part of the test) signed with the webhook's
// shared secret, checked here with node:crypto.
import { createHmac, timingSafeEqual } from "node:crypto";
import { describe, expect, it } from "vitest";
import { mintToken } from "../../../src/api/auth/mint.ts";
import { waitFor } from "../../../src/dev/cluster/process.ts";
import {
  APP_NS,
  ctx,
  fetchInCluster,
  getJson,
  kubectl,
  RECEIVER,
  RECEIVER_PORT,
} from "../support/cluster.ts";

const SECRET = "e2e-s3cret";

/** `Livepeer-Signature: t=<ms>,v1=<hex HMAC-SHA256(secret, body)>`. */
function signatureValid(header: string | undefined, body: string): boolean {
  const parts = Object.fromEntries((header ?? "").split(",").map((kv) => kv.split("=") as [string, string]));
  if (!parts.t || !parts.v1) return false;
  const expected = createHmac("sha256", SECRET).update(body).digest();
  const given = Buffer.from(parts.v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function token(sub: string, scope?: string): Promise<string> {
  const secret = await getJson<{ data: Record<string, string> }>(
    "secret",
    `${ctx.release}-api-jwt`,
    ctx.namespace,
  );
  const key = Buffer.from(secret.data["jwt-secret"]!, "base64");
  return mintToken({ secret: key, sub, ttlSeconds: 600, ...(scope && { scope }) });
}

async function apiBase(): Promise<string> {
  const svc = await getJson<{ spec: { clusterIP: string; ports: { port: number }[] } }>(
    "service",
    `${ctx.release}-api`,
    ctx.namespace,
  );
  return `http://${svc.spec.clusterIP}:${svc.spec.ports[0]!.port}/api`;
}

describe("a webhook through the API", () => {
  it("is created through the API Service, adopted by the controller, and gets a signed delivery", async () => {
    const base = await apiBase();
    const owner = await token("alice");
    const headers = { authorization: `Bearer ${owner}`, "content-type": "application/json" };
    const url = `http://${RECEIVER}.${APP_NS}.svc.cluster.local:${RECEIVER_PORT}/hook`;
    const created = await fetchInCluster(`${base}/webhook`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "e2e", url, events: ["stream.started"], sharedSecret: SECRET }),
    });
    expect(created.status, created.text).toBe(200);
    const hook = JSON.parse(created.text) as { id: string; userId: string };
    expect(hook).toMatchObject({ name: "e2e", url, userId: "alice" });
    const anonymous = await fetchInCluster(`${base}/webhook/${hook.id}`);
    expect(anonymous.status).toBe(401);

    type Webhook = {
      spec?: { sharedSecretRef?: { name: string } };
      status?: { conditions?: { type: string; status: string }[] };
      metadata: { uid: string; ownerReferences?: { uid: string; controller?: boolean }[] };
    };
    let webhook: Webhook | undefined;
    await waitFor(
      "the Webhook Ready with its Secret adopted",
      async () => {
        webhook = await getJson<Webhook>("webhooks.livepeer.org", hook.id, ctx.namespace);
        const ready = webhook.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
        const ref = webhook.spec?.sharedSecretRef?.name;
        if (!ready || !ref) return false;
        const owners = (await getJson<Webhook>("secret", ref, ctx.namespace)).metadata.ownerReferences ?? [];
        return owners.some((o) => o.uid === webhook!.metadata.uid && o.controller);
      },
      60_000,
      () => JSON.stringify(webhook?.status),
    );

    const producer = await token("alice", "events:write");
    const posted = await fetchInCluster(`${base}/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${producer}`, "content-type": "application/json" },
      body: JSON.stringify({ event: "stream.started", streamId: "e2e-stream", id: "e2e-evt-1" }),
    });
    expect(posted.status, posted.text).toBe(202);
    type Delivery = { path: string; headers: Record<string, string>; body: string };
    let delivery: Delivery | undefined;
    await waitFor(
      "the signed delivery at the receiver",
      async () => {
        const lines = (await kubectl(["logs", "-n", APP_NS, RECEIVER]))
          .split("\n")
          .filter((l) => l.startsWith("{"));
        delivery = lines.map((l) => JSON.parse(l) as Delivery).find((d) => d.body.includes("e2e-evt-1"));
        return !!delivery;
      },
      60_000,
    );
    expect(delivery!.path).toBe("/hook");
    expect(JSON.parse(delivery!.body)).toMatchObject({
      id: "e2e-evt-1",
      webhookId: hook.id,
      event: "stream.started",
    });
    expect(signatureValid(delivery!.headers["livepeer-signature"], delivery!.body)).toBe(true);
  }, 240_000);
});
