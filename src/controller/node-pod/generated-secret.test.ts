// A generated Secret is the operator's (labelled, so its cache sees it) and holds what it is given.
import { describe, expect, it } from "vitest";
import { generatedSecret, newSecretValue } from "./generated-secret.ts";

describe("generatedSecret", () => {
  it("is an Opaque Secret labelled as the operator's, with the values as stringData", () => {
    expect(generatedSecret({ name: "o-orch-secret", namespace: "video", values: { secret: "abc" } })).toEqual(
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: {
          name: "o-orch-secret",
          namespace: "video",
          labels: { "app.kubernetes.io/managed-by": "livepeer-operator" },
        },
        type: "Opaque",
        stringData: { secret: "abc" },
      },
    );
  });

  it("draws 256 random bits, hex, new each time", () => {
    const [a, b] = [newSecretValue(), newSecretValue()];
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).not.toBe(a);
  });
});
