import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { CONDITION_TYPES, ConditionType } from "./condition.ts";
import { GatewaySpecSchema } from "./gateway.ts";
import { OrchestratorSpecSchema, OrchestratorStatusSchema } from "./orchestrator.ts";
import { Gateways, Orchestrators, RemoteSigners, Webhooks } from "./resources.ts";
import { WebhookSpecSchema } from "./webhook.ts";

function problems(schema: z.ZodType, value: unknown): string[] {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

const keystore = {
  keystoreSecret: "orch-keystore",
  ethUrl: "https://arb1.arbitrum.io/rpc",
  pricePerUnit: "1000",
};

describe("Orchestrator spec", () => {
  it("defaults to an off-chain node behind a ClusterIP Service on 8935", () => {
    expect(OrchestratorSpecSchema.parse({})).toEqual({
      network: "offchain",
      pixelsPerUnit: 1,
      service: { type: "ClusterIP", port: 8935 },
      rollout: { strategy: "whenIdle" },
    });
  });

  it("needs a keystore Secret on any network but offchain, naming the field", () => {
    expect(
      problems(OrchestratorSpecSchema, {
        network: "arbitrum-one-mainnet",
        ethUrl: "https://x",
        pricePerUnit: "1",
      }),
    ).toEqual([
      expect.stringMatching(/^keystoreSecret: keystoreSecret is required when network is not offchain/),
    ]);
    expect(problems(OrchestratorSpecSchema, { network: "arbitrum-one-mainnet", ...keystore })).toEqual([]);
  });

  it("needs a chain URL or a devnet ConfigMap on chain", () => {
    const { ethUrl: _, ...noUrl } = keystore;
    expect(problems(OrchestratorSpecSchema, { network: "arbitrum-one-mainnet", ...noUrl })).toEqual([
      expect.stringMatching(/^ethUrl: ethUrl is required/),
    ]);
    expect(
      problems(OrchestratorSpecSchema, { network: "devnet", devnet: "livepeer-devnet", ...noUrl }),
    ).toEqual([]);
  });

  it("refuses a devnet ConfigMap on the offchain network", () => {
    expect(problems(OrchestratorSpecSchema, { devnet: "livepeer-devnet" })).toEqual([
      expect.stringMatching(/^network: devnet names a chain deployment but network is offchain/),
    ]);
  });

  it("needs a price on chain", () => {
    const { pricePerUnit: _, ...noPrice } = keystore;
    expect(problems(OrchestratorSpecSchema, { network: "arbitrum-one-mainnet", ...noPrice })).toEqual([
      expect.stringMatching(/^pricePerUnit: pricePerUnit is required/),
    ]);
  });

  it("needs the Controller's address on a network the node has none built in for", () => {
    expect(problems(OrchestratorSpecSchema, { network: "devnet", ...keystore })).toEqual([
      expect.stringMatching(
        /^ethController: ethController is required for a network the node has no built-in/,
      ),
    ]);
    const controller = "0x" + "a".repeat(40);
    expect(
      problems(OrchestratorSpecSchema, { network: "devnet", ...keystore, ethController: controller }),
    ).toEqual([]);
    expect(
      problems(OrchestratorSpecSchema, { network: "devnet", ...keystore, devnet: "livepeer-devnet" }),
    ).toEqual([]);
    expect(problems(OrchestratorSpecSchema, { network: "arbitrum-one-mainnet", ...keystore })).toEqual([]);
  });

  it("rejects a negative GPU count and maxSessions 0 with what to write instead", () => {
    expect(problems(OrchestratorSpecSchema, { gpu: { count: -1 } })).toEqual([
      expect.stringMatching(/^gpu.count: gpu.count must be 0 or more/),
    ]);
    expect(problems(OrchestratorSpecSchema, { maxSessions: 0 })).toEqual([
      expect.stringMatching(/^maxSessions: maxSessions must be 1 or more: leave it out/),
    ]);
  });

  it("rejects unknown fields (a typo is an error, not an ignored field)", () => {
    expect(problems(OrchestratorSpecSchema, { gpus: { count: 1 } })).toEqual([expect.stringMatching(/gpus/)]);
  });

  it("takes prices as strings: wei or with a currency suffix", () => {
    expect(problems(OrchestratorSpecSchema, { pricePerUnit: "1000" })).toEqual([]);
    expect(problems(OrchestratorSpecSchema, { pricePerUnit: "0.5USD" })).toEqual([]);
    expect(problems(OrchestratorSpecSchema, { pricePerUnit: 1000 })).toEqual([
      expect.stringContaining('pricePerUnit must be a string: quote it, for example "1000"'),
    ]);
    expect(problems(OrchestratorSpecSchema, { pricePerUnit: "1,000 wei" })).toEqual([
      expect.stringContaining("is not a price"),
    ]);
  });

  it("forbids GPUs in podTemplate.resources (they come from gpu.count)", () => {
    expect(
      problems(OrchestratorSpecSchema, { podTemplate: { resources: { limits: { "nvidia.com/gpu": 1 } } } }),
    ).toEqual([expect.stringMatching(/^podTemplate.resources.limits: GPUs are set with gpu.count/)]);
  });

  it("reads YAML numbers in resource quantities as strings", () => {
    const spec = OrchestratorSpecSchema.parse({
      podTemplate: { resources: { requests: { cpu: 4, memory: "4Gi" } } },
    });
    expect(spec.podTemplate?.resources?.requests).toEqual({ cpu: "4", memory: "4Gi" });
  });

  it("checks AI models with the aiModels.json rules", () => {
    expect(
      problems(OrchestratorSpecSchema, { ai: { models: [{ pipeline: "llm", model_id: "llama3:8b" }] } }),
    ).toEqual([expect.stringContaining("container-runtime LLM tag")]);
  });

  it("defaults a split setup to one transcoder", () => {
    expect(OrchestratorSpecSchema.parse({ transcoders: {} }).transcoders).toEqual({ replicas: 1 });
  });
});

describe("Gateway spec", () => {
  const selector = { orchestrators: { selector: { matchLabels: { "livepeer.org/pool": "main" } } } };

  it("defaults ingest to RTMP on 1935 and HTTP on", () => {
    expect(GatewaySpecSchema.parse(selector).ingest).toEqual({
      rtmp: { enabled: true, port: 1935 },
      http: true,
    });
  });

  it("needs exactly one way to find orchestrators", () => {
    const exactlyOne = expect.stringContaining(
      "exactly one of orchestrators.selector, orchestrators.addresses",
    );
    expect(problems(GatewaySpecSchema, { orchestrators: {} })).toEqual([
      expect.stringMatching(/^orchestrators: exactly one/),
    ]);
    expect(
      problems(GatewaySpecSchema, { orchestrators: { selector: {}, addresses: ["orch.example.com:8935"] } }),
    ).toEqual([exactlyOne]);
    expect(problems(GatewaySpecSchema, { orchestrators: { addresses: ["orch.example.com:8935"] } })).toEqual(
      [],
    );
  });

  it("discovers on chain only on a chain", () => {
    expect(problems(GatewaySpecSchema, { orchestrators: { discovery: "onchain" } })).toEqual([
      expect.stringMatching(/^orchestrators.discovery: orchestrators.discovery: onchain needs a chain/),
    ]);
    expect(
      problems(GatewaySpecSchema, {
        orchestrators: { discovery: "onchain" },
        network: "arbitrum-one-mainnet",
        keystoreSecret: "gw-keystore",
        ethUrl: "https://arb1.arbitrum.io/rpc",
      }),
    ).toEqual([]);
  });

  it("needs the tenant when stream events are on", () => {
    expect(problems(GatewaySpecSchema, { ...selector, streamEvents: { enabled: true } })).toEqual([
      expect.stringMatching(/^streamEvents.userId: streamEvents.userId is required/),
    ]);
  });

  it("needs a keystore on chain like an orchestrator", () => {
    expect(problems(GatewaySpecSchema, { ...selector, network: "devnet", devnet: "d" })).toEqual([
      expect.stringMatching(/^keystoreSecret:/),
    ]);
  });
});

describe("Webhook spec", () => {
  it("takes the spec's url pattern and event kinds", () => {
    expect(
      problems(WebhookSpecSchema, { name: "a", url: "https://example.com/h", events: ["stream.started"] }),
    ).toEqual([]);
    expect(problems(WebhookSpecSchema, { name: "a", url: "ftp://x" })).toEqual([
      expect.stringContaining("must start with http:// or https://"),
    ]);
    expect(problems(WebhookSpecSchema, { name: "a", url: "https://x", events: ["stream.exploded"] })).toEqual(
      [expect.stringMatching(/^events.0: "stream.exploded" is not an event kind/)],
    );
  });

  it("never holds the secret itself", () => {
    expect(problems(WebhookSpecSchema, { name: "a", url: "https://x", sharedSecret: "s" })).toEqual([
      expect.stringMatching(/sharedSecret/),
    ]);
  });
});

describe("status", () => {
  it("takes conditions of the documented types", () => {
    const conditions = CONDITION_TYPES.map((type) => ({
      type,
      status: "Unknown",
      reason: "Reconciling",
      message: "",
      lastTransitionTime: "2026-01-02T15:04:05Z",
    }));
    expect(problems(OrchestratorStatusSchema, { observedGeneration: 1, conditions })).toEqual([]);
    expect(ConditionType.Ready).toBe("Ready");
    expect(CONDITION_TYPES).toEqual([
      "Ready",
      "Scheduled",
      "NodeReachable",
      "ChainHealthy",
      "Registered",
      "Funded",
      "PriceCompatible",
      "Simulated",
      "AIReady",
      "LiveAIReady",
      "RewardCurrent",
      "NodeVersionSupported",
      "RemoteSignerReady",
      "RolloutPending",
      "Delivering",
    ]);
  });

  it("rejects a condition without a reason", () => {
    expect(
      problems(OrchestratorStatusSchema, {
        conditions: [
          {
            type: "Ready",
            status: "True",
            reason: "",
            message: "",
            lastTransitionTime: "2026-01-02T15:04:05Z",
          },
        ],
      }),
    ).toEqual(expect.arrayContaining([expect.stringMatching(/^conditions.0.reason:/)]));
  });
});

describe("REST resources", () => {
  it.each([
    ["Orchestrator", Orchestrators, "orchestrators"],
    ["Gateway", Gateways, "gateways"],
    ["RemoteSigner", RemoteSigners, "remotesigners"],
    ["Webhook", Webhooks, "webhooks"],
  ])("%s: namespaced, in livepeer.org/v1alpha1, at its plural", (kind, type, plural) => {
    expect(type).toEqual({ group: "livepeer.org", version: "v1alpha1", plural, kind, namespaced: true });
  });
});
