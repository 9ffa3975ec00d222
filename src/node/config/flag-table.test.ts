import { describe, expect, it } from "vitest";
import { canonicalName, FLAG_NAMES, FLAG_TABLE, flagSpec, isFlagName } from "./flag-table.ts";

// The spec's launch flags plus the real node's flags an operator uses.
const OPERATOR_FLAGS = [
  "gateway",
  "orchestrator",
  "transcoder",
  "broadcaster",
  "network",
  "ethUrl",
  "ethAcctAddr",
  "ethKeystorePath",
  "ethPassword",
  "datadir",
  "dataDir",
  "orchAddr",
  "aiServiceRegistry",
  "httpAddr",
  "httpIngest",
  "rtmpAddr",
  "cliAddr",
  "serviceAddr",
  "pricePerUnit",
  "maxPricePerUnit",
  "pixelsPerUnit",
  "maxPricePerCapability",
  "maxSessions",
  "nvidia",
  "reward",
  "v",
  "monitor",
  "ethController",
  "startupAvailabilityCheck",
  "orchSecret",
  "transcodingOptions",
  "testTranscoder",
  "blockPollingInterval",
  "initializeRound",
  "authWebhookUrl",
  "orchWebhookUrl",
  "aiModels",
  "aiModelsDir",
  "aiWorker",
  "config",
];

describe("flag table", () => {
  it.each(OPERATOR_FLAGS)("knows -%s", (name) => {
    expect(isFlagName(name)).toBe(true);
    expect(flagSpec(name as never).meaning.length).toBeGreaterThan(5);
  });

  it("does not know made-up or differently cased names", () => {
    expect(isFlagName("maxsessions")).toBe(false);
    expect(isFlagName("logtostderr")).toBe(false);
    expect(isFlagName("toString")).toBe(false);
  });

  it("types flags as the node declares them", () => {
    expect(FLAG_TABLE.gateway.type).toBe("bool");
    expect(FLAG_TABLE.maxSessions.type).toBe("string");
    expect(FLAG_TABLE.blockPollingInterval.type).toBe("int");
    expect(FLAG_TABLE.discoveryTimeout.type).toBe("duration");
    expect(FLAG_TABLE.selectRandFreq.type).toBe("float");
    expect(FLAG_TABLE.pixelsPerUnit.type).toBe("string");
  });

  it("keeps the node's defaults that matter to an operator", () => {
    expect(FLAG_TABLE.network.default).toBe("offchain");
    expect(FLAG_TABLE.maxSessions.default).toBe("10");
    expect(FLAG_TABLE.testTranscoder.default).toBe("true");
    expect(FLAG_TABLE.startupAvailabilityCheck.default).toBe("true");
    expect(FLAG_TABLE.v.default).toBe("3");
  });

  it("folds -datadir into -dataDir and nothing else", () => {
    expect(canonicalName("datadir")).toBe("dataDir");
    const folded = FLAG_NAMES.filter((n) => canonicalName(n) !== n);
    expect(folded).toEqual(["datadir"]);
  });

  it("marks secrets", () => {
    expect(FLAG_NAMES.filter((n) => (FLAG_TABLE[n] as { sensitive?: true }).sensitive)).toEqual(
      expect.arrayContaining(["ethPassword", "orchSecret"]),
    );
  });
});
