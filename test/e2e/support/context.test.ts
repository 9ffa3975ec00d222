// The e2e suite's context from LPO_E2E_* variables: defaults, and refusals that name the variable.
import { describe, expect, it } from "vitest";
import { DEFAULT_PLACEMENT, e2eContextFromEnv } from "./context.ts";

const ENOUGH = {
  KUBECONFIG: "/k",
  LPO_E2E_VALUES: "/v.yaml",
  LPO_E2E_OPERATOR_IMAGE: "livepeer-operator:1",
  LPO_E2E_SIMULATOR_IMAGE: "livepeer-operator-node:1",
};

const PREVIOUS = {
  LPO_E2E_PREVIOUS_VERSION: "0.1.0",
  LPO_E2E_PREVIOUS_COMMIT: "a6eb370de37ff9f7ee099468e6d86293f88caa48",
  LPO_E2E_PREVIOUS_CHART: "/releases/a6eb370/chart",
  LPO_E2E_PREVIOUS_OPERATOR_IMAGE: "livepeer-operator:0.1.0-a6eb370",
  LPO_E2E_PREVIOUS_SIMULATOR_IMAGE: "livepeer-node-simulator:0.1.0-a6eb370",
};
const STORE = { LPO_E2E_DELIVERY_STORE: "/var/lib/lpo-e2e/deliveries" };

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

  it("has no previous release (the upgrade scenario left out) when no LPO_E2E_PREVIOUS_* is set", () => {
    const context = e2eContextFromEnv(ENOUGH, "/c");
    expect(context).not.toHaveProperty("previous");
    expect(context).not.toHaveProperty("deliveryStore");
  });

  it("takes the previous release and the delivery store, pinned to a node or not", () => {
    expect(e2eContextFromEnv({ ...ENOUGH, ...PREVIOUS, ...STORE }, "/c")).toMatchObject({
      previous: {
        version: "0.1.0",
        commit: "a6eb370de37ff9f7ee099468e6d86293f88caa48",
        chart: "/releases/a6eb370/chart",
        operatorImage: "livepeer-operator:0.1.0-a6eb370",
        simulatorImage: "livepeer-node-simulator:0.1.0-a6eb370",
      },
      deliveryStore: { path: "/var/lib/lpo-e2e/deliveries" },
    });
    const pinned = { ...ENOUGH, ...PREVIOUS, ...STORE, LPO_E2E_DELIVERY_STORE_NODE: "lpo-worker" };
    expect(e2eContextFromEnv(pinned, "/c").deliveryStore).toEqual({
      path: "/var/lib/lpo-e2e/deliveries",
      node: "lpo-worker",
    });
  });

  it.each(Object.keys(PREVIOUS))(
    "refuses a previous release without %s, naming it and the way out",
    (name) => {
      const env = { ...ENOUGH, ...PREVIOUS, ...STORE, [name]: " " };
      expect(() => e2eContextFromEnv(env, "/c")).toThrow(
        new RegExp(`${name} is not set but other LPO_E2E_PREVIOUS_\\* are: .*or unset them all`),
      );
    },
  );

  it("names every missing LPO_E2E_PREVIOUS_* variable at once", () => {
    const env = { ...ENOUGH, ...STORE, LPO_E2E_PREVIOUS_VERSION: "0.1.0" };
    const message = (() => {
      try {
        e2eContextFromEnv(env, "/c");
      } catch (err) {
        return (err as Error).message;
      }
      return "";
    })();
    expect(message.match(/LPO_E2E_PREVIOUS_\w+ is not set/g)).toEqual([
      "LPO_E2E_PREVIOUS_COMMIT is not set",
      "LPO_E2E_PREVIOUS_CHART is not set",
      "LPO_E2E_PREVIOUS_OPERATOR_IMAGE is not set",
      "LPO_E2E_PREVIOUS_SIMULATOR_IMAGE is not set",
    ]);
  });

  it.each([
    [{ ...PREVIOUS }, /LPO_E2E_DELIVERY_STORE is not set: the upgrade scenario/],
    [
      { ...PREVIOUS, LPO_E2E_DELIVERY_STORE: "deliveries" },
      /LPO_E2E_DELIVERY_STORE 'deliveries' is not an absolute path/,
    ],
    [
      { LPO_E2E_DELIVERY_STORE_NODE: "lpo-worker" },
      /LPO_E2E_DELIVERY_STORE_NODE is set without LPO_E2E_DELIVERY_STORE/,
    ],
  ])("refuses the delivery store %j, naming the variable", (vars, message) => {
    expect(() => e2eContextFromEnv({ ...ENOUGH, ...vars }, "/c")).toThrow(message);
  });
});
