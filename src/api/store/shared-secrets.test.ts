import { describe, expect, it } from "vitest";
import type { StoredWebhook } from "../../schema/webhook.ts";
import { newSecretRef, secretObject } from "./shared-secrets.ts";

const owner: StoredWebhook = {
  apiVersion: "livepeer.org/v1alpha1",
  kind: "Webhook",
  metadata: { name: "0b9f4c1e-7a52-4d7e-9a55-3c1f0f7b2a10", namespace: "ns", uid: "uid-1" },
  spec: { name: "n", url: "https://e.com" },
};
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

describe("newSecretRef", () => {
  it("names a fresh Secret per write, a valid DNS subdomain even for long names", () => {
    const a = newSecretRef(owner.metadata!.name!);
    expect(a.key).toBe("sharedSecret");
    expect(a.name).not.toBe(newSecretRef(owner.metadata!.name!).name);
    const long = newSecretRef(`${"a".repeat(229)}.b`);
    expect(long.name).toMatch(DNS_SUBDOMAIN);
    expect(long.name.length).toBeLessThanOrEqual(253);
  });
});

describe("secretObject", () => {
  it("is owned by the Webhook, labelled as the API's, and holds the value base64-encoded", () => {
    const s = secretObject({ name: "s1", key: "sharedSecret" }, owner, "hunter2");
    expect(s.metadata).toMatchObject({
      name: "s1",
      namespace: "ns",
      labels: {
        "livepeer.org/managed-by": "livepeer-operator-api",
        "livepeer.org/webhook": owner.metadata!.name,
      },
      ownerReferences: [{ kind: "Webhook", uid: "uid-1", controller: true, blockOwnerDeletion: true }],
    });
    expect(s.data).toEqual({ sharedSecret: Buffer.from("hunter2").toString("base64") });
  });
});
