import { describe, expect, it } from "vitest";
import { secretKeysOnly } from "./secret-cache.ts";

describe("Secrets in the cache", () => {
  it("keep key names, labels and owners but no value anywhere", () => {
    const cached = secretKeysOnly({
      apiVersion: "v1",
      kind: "Secret",
      type: "Opaque",
      metadata: {
        name: "s",
        namespace: "n",
        labels: { "livepeer.org/managed-by": "livepeer-operator-api" },
        annotations: {
          "kubectl.kubernetes.io/last-applied-configuration": '{"data":{"sharedSecret":"dG9wc2VjcmV0"}}',
          note: "kept",
        },
      },
      data: { sharedSecret: "dG9wc2VjcmV0" },
      stringData: { extra: "topsecret" },
    });
    expect(cached.dataKeys).toEqual(["extra", "sharedSecret"]);
    expect(cached.metadata.labels).toEqual({ "livepeer.org/managed-by": "livepeer-operator-api" });
    expect(cached.metadata.annotations).toEqual({ note: "kept" });
    const text = JSON.stringify(cached);
    expect(text).not.toContain("dG9wc2VjcmV0");
    expect(text).not.toContain("topsecret");
  });
});
