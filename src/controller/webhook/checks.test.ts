import { describe, expect, it } from "vitest";
import { checkSharedSecret, checkUrl } from "./checks.ts";
import type { Webhook } from "./resource.ts";
import { secretKeysOnly } from "./secret-cache.ts";

const webhook = (spec: Partial<Webhook["spec"]> = {}): Webhook => ({
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
    expect(v.ok).toBe(ok);
    if (!v.ok) expect(v.reason).toBe("InvalidURL");
  });
});

describe("shared secret check", () => {
  it("is SecretNotFound with the kubectl command that fixes it", () => {
    const v = checkSharedSecret(webhook(), undefined);
    expect(v).toMatchObject({ ok: false, reason: "SecretNotFound" });
    expect(!v.ok && v.message).toContain(
      "kubectl create secret generic wh-secret -n tenants --from-literal=sharedSecret=<shared secret>",
    );
  });

  it("is SecretKeyMissing naming the keys the Secret has (never values)", () => {
    const v = checkSharedSecret(webhook(), secret({ other: "c2VjcmV0" }));
    expect(v).toMatchObject({ ok: false, reason: "SecretKeyMissing" });
    expect(!v.ok && v.message).toContain("has no key sharedSecret (it has other)");
    expect(!v.ok && v.message).not.toContain("c2VjcmV0");
  });

  it("passes when the key exists", () => {
    expect(checkSharedSecret(webhook(), secret({ sharedSecret: "eA==" }))).toEqual({ ok: true });
  });

  it("passes, noting unsigned deliveries, when no secret is referenced", () => {
    expect(checkSharedSecret(webhook({ sharedSecretRef: undefined }), undefined)).toMatchObject({ ok: true });
  });
});
