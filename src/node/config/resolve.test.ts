import { describe, expect, it } from "vitest";
import { FlagParseError } from "./errors.ts";
import { configFilePath, resolveFlags } from "./resolve.ts";

const configFile = "orchestrator\nnetwork devnet\nmaxSessions 4\npricePerUnit 100\nmonitor\n";

describe("resolveFlags: command line > LP_ environment > config file", () => {
  it("takes the config file alone", () => {
    const r = resolveFlags({ argv: [], configFile });
    expect(r.flags).toEqual({
      orchestrator: true,
      network: "devnet",
      maxSessions: "4",
      pricePerUnit: "100",
      monitor: true,
    });
    expect(r.sources.maxSessions).toBe("config file");
  });

  it("an environment variable overrides the config file", () => {
    const r = resolveFlags({ argv: [], env: { LP_MAXSESSIONS: "6" }, configFile });
    expect(r.flags.maxSessions).toBe("6");
    expect(r.sources.maxSessions).toBe("environment");
    expect(r.sources.network).toBe("config file");
  });

  it("the command line overrides both", () => {
    const r = resolveFlags({ argv: ["-maxSessions=9"], env: { LP_MAXSESSIONS: "6" }, configFile });
    expect(r.flags.maxSessions).toBe("9");
    expect(r.sources.maxSessions).toBe("command line");
  });

  it("a command-line false beats a config-file true", () => {
    const r = resolveFlags({ argv: ["-monitor=false"], configFile });
    expect(r.flags.monitor).toBe(false);
  });

  it("ignores empty and unrelated environment variables", () => {
    const r = resolveFlags({
      argv: [],
      env: { LP_NETWORK: "", LP_NOSUCHFLAG: "1", MAXSESSIONS: "2" },
      configFile,
    });
    expect(r.flags.network).toBe("devnet");
    expect(r.flags.maxSessions).toBe("4");
  });

  it("environment names are LP_ + the upper-cased flag name", () => {
    const r = resolveFlags({ argv: [], env: { LP_ETHURL: "https://rpc", LP_GATEWAY: "true" } });
    expect(r.flags).toEqual({ ethUrl: "https://rpc", gateway: true });
  });

  it("-datadir on the command line beats dataDir in the config file", () => {
    const r = resolveFlags({ argv: ["-datadir=/cli"], configFile: "dataDir /file\n" });
    expect(r.flags.dataDir).toBe("/cli");
    expect(r.seen).toEqual(["datadir", "dataDir"]);
  });

  it("reports arguments the node ignores", () => {
    expect(resolveFlags({ argv: ["-gateway", "extra"] }).ignoredArgs).toEqual(["extra"]);
  });

  it("a bad environment value stops the node with exit 1", () => {
    expect(() => resolveFlags({ argv: [], env: { LP_MONITOR: "maybe" } })).toThrow(FlagParseError);
    expect(() => resolveFlags({ argv: [], env: { LP_MONITOR: "maybe" } })).toThrow(
      'environment variable "LP_MONITOR"',
    );
  });

  it("an unknown name in the config file is fatal even when the command line is fine", () => {
    expect(() => resolveFlags({ argv: ["-gateway"], configFile: "gatway\n" })).toThrow(
      '"gatway" not defined',
    );
  });
});

describe("configFilePath", () => {
  it("prefers -config, then LP_CONFIG", () => {
    expect(configFilePath({ argv: ["-config", "/a"], env: { LP_CONFIG: "/b" } })).toBe("/a");
    expect(configFilePath({ argv: [], env: { LP_CONFIG: "/b" } })).toBe("/b");
    expect(configFilePath({ argv: [] })).toBeUndefined();
  });
});
