import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../kube/index.ts";
import type { StoredWebhook } from "../../schema/webhook.ts";
import { MANAGED_BY_API, MANAGED_BY_LABEL, secretOwnership } from "./secret-ownership.ts";

const webhook: StoredWebhook = {
  metadata: { name: "wh", namespace: "n", uid: "wh-uid" },
  spec: { name: "wh", url: "https://x" },
};
const ref = (uid: string, controller = true) => ({
  apiVersion: "livepeer.org/v1alpha1",
  kind: "Webhook",
  name: "x",
  uid,
  controller,
});
const secret = (
  labels: Record<string, string> = {},
  ownerReferences: ReturnType<typeof ref>[] = [],
): KubeObject => ({
  metadata: { name: "s", namespace: "n", labels, ownerReferences },
});

describe("which Secrets a Webhook owns", () => {
  it.each<[string, KubeObject, string]>([
    ["one the API generated for it is adopted", secret({ [MANAGED_BY_LABEL]: MANAGED_BY_API }), "adopt"],
    ["one a user brought is never owned", secret(), "user"],
    [
      "a user's Secret with another label value is never owned",
      secret({ [MANAGED_BY_LABEL]: "helm" }),
      "user",
    ],
    [
      "one it already controls stays owned",
      secret({ [MANAGED_BY_LABEL]: MANAGED_BY_API }, [ref("wh-uid")]),
      "owned",
    ],
    [
      "one another object controls is left alone",
      secret({ [MANAGED_BY_LABEL]: MANAGED_BY_API }, [ref("other")]),
      "other-controller",
    ],
    [
      "a non-controller owner reference does not block adoption",
      secret({ [MANAGED_BY_LABEL]: MANAGED_BY_API }, [ref("other", false)]),
      "adopt",
    ],
  ])("%s", (_name, s, expected) => {
    expect(secretOwnership(webhook, s)).toBe(expected);
  });
});
