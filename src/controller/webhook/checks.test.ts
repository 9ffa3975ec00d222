import { describe, expect, it } from "vitest";
import type { StoredWebhook } from "../../schema/webhook.ts";
import { checkSharedSecret, checkUrl } from "./checks.ts";
import { secretKeysOnly } from "./secret-cache.ts";

const webhook = (spec: Partial<StoredWebhook["spec"]> = {}): StoredWebhook => ({
  metadata: { name: "wh", namespace: "tenants", generation: 1 },
  spec: {
    name: "wh",
    url: "https://example.com/hook",
    sharedSecretRef: { name: "wh-secret", key: "sharedSecret" },
    ...spec,
  },
});
const secret = (data: Record<string, string>) =>
  secretKeysOnly({ metadata: { name: "wh-secret", namespace: "tenants" }, data });

describe("webhook URL check", () => {
  it.each([
    ["https://example.com/hook", true],
    ["http://10.0.0.1:8080/events?x=1", true],
    ["example.com/hook", false],
    ["", false],
    ["ftp://example.com/hook", false],
    ["https://user:pass@example.com/hook", false],
  ])("%j ok=%s", (url, ok) => {
    const v = checkUrl(webhook({ url }));
    expect(v.status === "True").toBe(ok);
    if (v.status !== "True") expect(v.reason).toBe("InvalidURL");
  });
});

describe("shared secret check", () => {
  it("is SecretNotFound with the kubectl command that fixes it", () => {
    const v = checkSharedSecret(webhook(), undefined);
    expect(v).toMatchObject({ status: "False", reason: "SecretNotFound" });
    expect(v.message).toContain(
      "kubectl create secret generic wh-secret -n tenants --from-literal=sharedSecret=<shared secret>",
    );
  });

  it("is SecretKeyMissing naming the keys the Secret has (never values)", () => {
    const v = checkSharedSecret(webhook(), secret({ other: "c2VjcmV0" }));
    expect(v).toMatchObject({ status: "False", reason: "SecretKeyMissing" });
    expect(v.message).toContain("has no key sharedSecret (it has other)");
    expect(v.message).not.toContain("c2VjcmV0");
  });

  it("passes when the key exists", () => {
    expect(checkSharedSecret(webhook(), secret({ sharedSecret: "eA==" }))).toEqual({
      status: "True",
      reason: "SecretFound",
      message: "signed with key sharedSecret of Secret wh-secret",
    });
  });

  it("passes, noting unsigned deliveries, when no secret is referenced", () => {
    expect(checkSharedSecret(webhook({ sharedSecretRef: undefined }), undefined)).toMatchObject({
      status: "True",
      message: "deliveries are not signed: spec.sharedSecretRef is not set",
    });
  });
});
