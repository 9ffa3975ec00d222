// The e2e suite's context from LPO_E2E_* variables: defaults, and refusals that name the variable.
import { describe, expect, it } from "vitest";
import { DEFAULT_PLACEMENT, e2eContextFromEnv } from "./context.ts";

const ENOUGH = {
  KUBECONFIG: "/k",
  LPO_E2E_VALUES: "/v.yaml",
  LPO_E2E_OPERATOR_IMAGE: "livepeer-operator:1",
  LPO_E2E_SIMULATOR_IMAGE: "livepeer-operator-node:1",
};

describe("the e2e context from the environment", () => {
  it("fills in the chart, release, namespace, tools and GPU placement by default", () => {
    expect(e2eContextFromEnv(ENOUGH, "/chart")).toEqual({
      kubeconfig: "/k",
      kubectl: "kubectl",
      helm: "helm",
      chart: "/chart",
      namespace: "livepeer-system",
      release: "lpo",
      valuesFile: "/v.yaml",
      operatorImage: "livepeer-operator:1",
      simulatorImage: "livepeer-operator-node:1",
      placement: DEFAULT_PLACEMENT,
    });
  });

  it.each([
    ["KUBECONFIG", /KUBECONFIG is not set: set it to the kubeconfig/],
    ["LPO_E2E_VALUES", /LPO_E2E_VALUES is not set/],
    ["LPO_E2E_OPERATOR_IMAGE", /LPO_E2E_OPERATOR_IMAGE is not set/],
    ["LPO_E2E_SIMULATOR_IMAGE", /LPO_E2E_SIMULATOR_IMAGE is not set/],
  ])("refuses to run without %s, naming it", (name, message) => {
    expect(() => e2eContextFromEnv({ ...ENOUGH, [name]: "" }, "/chart")).toThrow(message);
  });

  it("takes a placement as JSON and refuses one that is not, naming the variable", () => {
    const placement = { nodeSelector: { pool: "gpu" }, tolerations: [] };
    expect(
      e2eContextFromEnv({ ...ENOUGH, LPO_E2E_PLACEMENT: JSON.stringify(placement) }, "/c").placement,
    ).toEqual(placement);
    expect(() => e2eContextFromEnv({ ...ENOUGH, LPO_E2E_PLACEMENT: "gpu=true" }, "/c")).toThrow(
      /LPO_E2E_PLACEMENT is not JSON/,
    );
  });
});
