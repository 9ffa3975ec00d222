import { describe, expect, it } from "vitest";
import { parseSemVer } from "../../release/semver.ts";
import { FLAG_NAMES } from "./flag-table.ts";
import {
  FLAG_SINCE,
  flagNamesInArgs,
  flagsMissingInRelease,
  nodeVersionOf,
  nodeVersionSupport,
  SUPPORTED_NODE_VERSIONS,
} from "./flag-versions.ts";

describe("since which go-livepeer release each flag exists", () => {
  it("knows every flag of the table, as a release", () => {
    expect(Object.keys(FLAG_SINCE).sort()).toEqual([...FLAG_NAMES].sort());
    for (const [name, since] of Object.entries(FLAG_SINCE)) expect(parseSemVer(since), name).toBeDefined();
  });

  it("has the releases go-livepeer's history shows for flags the operator renders", () => {
    expect(FLAG_SINCE.gateway).toBe("0.7.6");
    expect(FLAG_SINCE.aiWorker).toBe("0.8.0");
    expect(FLAG_SINCE.maxPricePerCapability).toBe("0.8.0");
    expect(FLAG_SINCE.aiServiceRegistry).toBe("0.8.0");
    expect(FLAG_SINCE.startupAvailabilityCheck).toBe("0.7.2");
    expect(FLAG_SINCE.config).toBe("0.5.23");
    expect(FLAG_SINCE.remoteSigner).toBe("0.8.10");
  });
});

describe("the release an image runs", () => {
  it.each([
    ["livepeer/go-livepeer:0.8.3", "0.8.3"],
    ["livepeer/go-livepeer:v0.8.9", "0.8.9"],
    ["registry.example.com:5000/mirror/go-livepeer:0.9.1@sha256:abc", "0.9.1"],
  ])("%s runs %s", (image, version) => {
    expect(nodeVersionOf(image)).toMatchObject(parseSemVer(version)!);
  });

  it.each([
    "livepeer/go-livepeer:latest",
    "livepeer/go-livepeer:master",
    "livepeer/go-livepeer:0.7.7-ai.2",
    "livepeer/go-livepeer@sha256:0123",
    "livepeer/go-livepeer",
    "livepeer-node-simulator:0.2.0-dev",
  ])("%s names no go-livepeer release", (image) => {
    expect(nodeVersionOf(image)).toBeUndefined();
  });
});

describe("flags a release lacks are refused, naming the flag, the release and the fix", () => {
  it("-gateway on go-livepeer 0.7.5", () => {
    const [p, ...rest] = flagsMissingInRelease(
      { gateway: true, monitor: true },
      "livepeer/go-livepeer:0.7.5",
    );
    expect(rest).toEqual([]);
    expect(p).toMatchObject({ flag: "gateway", severity: "error" });
    expect(p!.message).toBe(
      "-gateway does not exist in go-livepeer 0.7.5 (image livepeer/go-livepeer:0.7.5): the node would exit on the unknown flag; it was added in 0.7.6",
    );
    expect(p!.fix).toContain("set spec.image to go-livepeer 0.7.6 or later");
  });

  it("AI flags on 0.7.9, and a flag from spec.extraArgs", () => {
    const problems = flagsMissingInRelease(
      { orchestrator: true, aiWorker: true, aiModels: "/m.json" },
      "livepeer/go-livepeer:0.7.9",
      ["-config", "/etc/livepeer/livepeer.conf", "-remoteSigner=true"],
    );
    expect(problems.map((p) => p.flag).sort()).toEqual(["aiModels", "aiWorker", "remoteSigner"]);
  });

  it("nothing on a release that has them all, nor on an image whose release is unknown", () => {
    const flags = { gateway: true, aiServiceRegistry: true, maxPricePerCapability: "/c.json" };
    expect(flagsMissingInRelease(flags, "livepeer/go-livepeer:0.8.3")).toEqual([]);
    expect(flagsMissingInRelease(flags, "livepeer/go-livepeer:latest")).toEqual([]);
    expect(flagsMissingInRelease(flags, "livepeer-node-simulator:0.2.0-dev")).toEqual([]);
  });

  it("-config itself on a release before the config file (0.5.22)", () => {
    expect(
      flagsMissingInRelease({ orchestrator: true }, "livepeer/go-livepeer:0.5.22").map((p) => p.flag),
    ).toEqual(["config"]);
  });

  it("reads flag names from a command line", () => {
    expect(flagNamesInArgs(["-v=6", "--monitor", "-maxSessions", "4", "value", "-"])).toEqual([
      "v",
      "monitor",
      "maxSessions",
    ]);
  });
});

describe("NodeVersionSupported", () => {
  const { oldest, newest } = SUPPORTED_NODE_VERSIONS;
  it.each([
    ["livepeer/go-livepeer:0.8.8", "True", "Supported"],
    [`livepeer/go-livepeer:${oldest}`, "True", "Supported"],
    [`livepeer/go-livepeer:${newest}`, "True", "Supported"],
    ["livepeer/go-livepeer:0.7.9", "False", "NodeVersionTooOld"],
    ["livepeer/go-livepeer:0.10.0", "False", "NodeVersionNewer"],
    ["livepeer/go-livepeer:latest", "Unknown", "VersionNotInTag"],
    ["livepeer-node-simulator:0.2.0-dev", "Unknown", "NotGoLivepeer"],
  ])("%s: %s %s", (image, status, reason) => {
    expect(nodeVersionSupport(image)).toMatchObject({ status, reason });
  });

  it("names the range and the fix", () => {
    expect(nodeVersionSupport("livepeer/go-livepeer:0.7.9").message).toBe(
      `go-livepeer 0.7.9 is older than the oldest release this operator supports (${oldest} to ${newest}): upgrade spec.image, for example to livepeer/go-livepeer:${newest}`,
    );
  });
});
