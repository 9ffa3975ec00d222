import { describe, expect, it } from "vitest";
import type { FlagValues } from "./flag-table.ts";
import { passwordFileProblem } from "./password-file.ts";
import { isLocalOrInCluster } from "./rules/chain.ts";
import { formatProblem, hasErrors, validateFlags } from "./validate.ts";

const offchainOrch = {
  orchestrator: true,
  transcoder: true,
  serviceAddr: "127.0.0.1:8935",
  cliAddr: "127.0.0.1:7935",
};
const onchainGateway = {
  gateway: true,
  network: "arbitrum-one-mainnet",
  ethUrl: "https://arb1.arbitrum.io/rpc",
  ethKeystorePath: "/keystore",
  ethPassword: "/secrets/password",
  httpAddr: "127.0.0.1:8935",
};
const devnetOrch = {
  orchestrator: true,
  transcoder: true,
  network: "devnet",
  ethUrl: "http://10.0.0.5:8545",
  ethController: "0x77A0865438f2EfD65667362D4a8937537CA7a5EF",
  ethKeystorePath: "/keystore",
  ethPassword: "/secrets/password",
  pricePerUnit: "1000",
  serviceAddr: "orch.default.svc.cluster.local:8935",
};

describe("validateFlags: valid configurations", () => {
  it.each([
    ["off-chain orchestrator + transcoder", offchainOrch],
    ["on-chain gateway", onchainGateway],
    ["devnet orchestrator over http", devnetOrch],
    [
      "split orchestrator with auto sessions",
      { orchestrator: true, orchSecret: "s", maxSessions: "auto", serviceAddr: "o:8935" },
    ],
    [
      "standalone transcoder",
      { transcoder: true, orchSecret: "s", orchAddr: "orch:8935", nvidia: "0,1", maxSessions: 6 },
    ],
    ["gateway with currency cap", { gateway: true, maxPricePerUnit: "0.02USD", pixelsPerUnit: 1 }],
    [
      "AI orchestrator without transcoder",
      { orchestrator: true, aiModels: "/cfg/aiModels.json", serviceAddr: "o:8935" },
    ],
    [
      "remote signer on chain with remote discovery",
      {
        ...onchainGateway,
        gateway: false,
        remoteSigner: true,
        remoteDiscovery: true,
        cliAddr: "0.0.0.0:3935",
      },
    ],
  ])("%s has no problem", (_, values) => {
    expect(validateFlags(values)).toEqual([]);
  });
});

// [case, flags, flag the problem names, severity, words of the message, words of the fix]
const cases: [string, FlagValues, string, "error" | "warning", string, string][] = [
  [
    "unknown name",
    { ...offchainOrch, maxsessions: 3 },
    "maxsessions",
    "error",
    "not a go-livepeer flag",
    "did you mean -maxSessions",
  ],
  [
    "unknown name, no near match",
    { ...offchainOrch, foo: 1 },
    "foo",
    "error",
    "not a go-livepeer flag",
    "remove it",
  ],
  ["bad boolean", { ...offchainOrch, monitor: "yes" }, "monitor", "error", "boolean flag", "true or false"],
  [
    "bad integer",
    { ...offchainOrch, blockPollingInterval: "5s" },
    "blockPollingInterval",
    "error",
    "not an integer",
    "whole number",
  ],
  ["deprecated -broadcaster", { broadcaster: true }, "broadcaster", "warning", "deprecated", "-gateway"],
  ["deprecated -datadir", { ...offchainOrch, datadir: "/d" }, "datadir", "warning", "deprecated", "-dataDir"],
  [
    "both data dir spellings disagree",
    { ...offchainOrch, datadir: "/a", dataDir: "/b" },
    "dataDir,datadir",
    "error",
    "different values",
    "keep only -dataDir",
  ],
  [
    "no role",
    { network: "offchain" },
    "orchestrator,gateway,transcoder,aiWorker",
    "error",
    "No services enabled",
    "exactly one",
  ],
  [
    "remote signer off chain",
    { remoteSigner: true, network: "offchain" },
    "remoteSigner,network",
    "error",
    "requires on-chain network",
    "set -network",
  ],
  [
    "remote signer with a gateway",
    { ...onchainGateway, remoteSigner: true },
    "remoteSigner,gateway",
    "error",
    "node type of its own",
    "its own node",
  ],
  [
    "remote signer without its keystore",
    { remoteSigner: true, network: "arbitrum-one-mainnet", ethUrl: "https://x", ethPassword: "/p" },
    "ethKeystorePath",
    "error",
    "sign payment tickets",
    "-ethKeystorePath",
  ],
  [
    "gateway and orchestrator",
    { ...offchainOrch, gateway: true },
    "orchestrator,transcoder,gateway",
    "error",
    "several roles",
    "one node per role",
  ],
  [
    "transcoder and aiWorker",
    { transcoder: true, aiWorker: true, orchSecret: "s", orchAddr: "o" },
    "transcoder,aiWorker",
    "error",
    "several roles",
    "one node per role",
  ],
  [
    "gateway and broadcaster",
    { gateway: true, broadcaster: true },
    "broadcaster,gateway",
    "warning",
    "both given",
    "keep only -gateway",
  ],
  [
    "orchestrator alone without orchSecret",
    { orchestrator: true, serviceAddr: "o:8935" },
    "orchSecret",
    "error",
    "needs -orchSecret",
    "-transcoder",
  ],
  [
    "transcoder without orchSecret",
    { transcoder: true, orchAddr: "o:8935" },
    "orchSecret",
    "error",
    "standalone transcoder needs -orchSecret",
    "orchestrator's -orchSecret",
  ],
  [
    "transcoder without orchAddr",
    { transcoder: true, orchSecret: "s" },
    "orchAddr",
    "error",
    "needs -orchAddr",
    "host:port",
  ],
  [
    "orchestrator without serviceAddr",
    { orchestrator: true, transcoder: true },
    "serviceAddr",
    "warning",
    "public IP service",
    "-serviceAddr <host>:<port>",
  ],
  [
    "serviceAddr without port",
    { orchestrator: true, transcoder: true, serviceAddr: "orch.example.com" },
    "serviceAddr",
    "warning",
    "random port",
    "orch.example.com:8935",
  ],
  [
    "public gateway without auth webhook",
    { gateway: true, httpAddr: "0.0.0.0:8935" },
    "httpIngest",
    "warning",
    "silently turns HTTP ingest",
    "-authWebhookUrl",
  ],
  [
    "maxSessions 0",
    { ...offchainOrch, maxSessions: 0 },
    "maxSessions",
    "error",
    "not an integer > 0",
    "integer > 0",
  ],
  [
    "maxSessions negative",
    { ...offchainOrch, maxSessions: "-2" },
    "maxSessions",
    "error",
    "not an integer > 0",
    "integer > 0",
  ],
  [
    "maxSessions text",
    { ...offchainOrch, maxSessions: "ten" },
    "maxSessions",
    "error",
    "not an integer > 0",
    "integer > 0",
  ],
  [
    "maxSessions auto with -transcoder",
    { ...offchainOrch, maxSessions: "auto" },
    "maxSessions",
    "error",
    "only for an orchestrator without -transcoder",
    "integer > 0",
  ],
  [
    "maxSessions auto on a gateway",
    { gateway: true, maxSessions: "auto" },
    "maxSessions",
    "error",
    "only for an orchestrator",
    "integer > 0",
  ],
  [
    "remote http ethUrl",
    { ...onchainGateway, ethUrl: "http://rpc.example.com:8545" },
    "ethUrl",
    "error",
    "remote endpoint without https",
    "https://",
  ],
  [
    "remote ws ethUrl",
    { ...onchainGateway, ethUrl: "ws://203.0.113.7:8546" },
    "ethUrl",
    "error",
    "without https",
    "https://",
  ],
  [
    "ethUrl not a URL",
    { ...onchainGateway, ethUrl: "rpc.example.com" },
    "ethUrl",
    "error",
    "not a URL",
    "https://",
  ],
  [
    "on-chain without ethUrl",
    { ...onchainGateway, ethUrl: undefined },
    "ethUrl",
    "error",
    "without -ethUrl",
    "JSON-RPC URL",
  ],
  [
    "on-chain gateway without keystore",
    { ...onchainGateway, ethKeystorePath: undefined },
    "ethKeystorePath",
    "error",
    "sign payment tickets",
    "-ethKeystorePath",
  ],
  [
    "on-chain gateway without password",
    { ...onchainGateway, ethPassword: undefined },
    "ethPassword",
    "error",
    "hangs",
    "no trailing newline",
  ],
  [
    "on-chain orchestrator without keystore",
    { ...devnetOrch, ethKeystorePath: undefined },
    "ethKeystorePath",
    "warning",
    "creates a new account",
    "-ethKeystorePath",
  ],
  [
    "devnet without controller",
    { ...devnetOrch, ethController: undefined },
    "ethController",
    "error",
    "no built-in protocol Controller",
    "-ethController",
  ],
  [
    "custom network without controller",
    { ...onchainGateway, network: "arbitrum-sepolia" },
    "ethController",
    "error",
    "arbitrum-sepolia has no built-in",
    "-ethController",
  ],
  [
    "bad controller",
    { ...devnetOrch, ethController: "0x123" },
    "ethController",
    "error",
    "not an address",
    "40 hex digits",
  ],
  [
    "deprecated network",
    { ...onchainGateway, network: "rinkeby" },
    "network",
    "warning",
    "deprecated",
    "arbitrum-one-mainnet",
  ],
  [
    "bad account address",
    { ...onchainGateway, ethAcctAddr: "me" },
    "ethAcctAddr",
    "error",
    "not an account address",
    "40 hex digits",
  ],
  [
    "bad pricePerUnit",
    { ...offchainOrch, pricePerUnit: "1,000" },
    "pricePerUnit",
    "error",
    "not a price",
    "0.5USD",
  ],
  [
    "negative pricePerUnit",
    { ...offchainOrch, pricePerUnit: "-1" },
    "pricePerUnit",
    "error",
    "not a price",
    "wei",
  ],
  [
    "on-chain orchestrator without price",
    { ...devnetOrch, pricePerUnit: undefined },
    "pricePerUnit",
    "error",
    "work for free",
    "-pricePerUnit",
  ],
  [
    "pixelsPerUnit 0",
    { ...onchainGateway, pixelsPerUnit: 0 },
    "pixelsPerUnit",
    "error",
    "not an integer > 0",
    "whole number",
  ],
  [
    "pixelsPerUnit fraction",
    { ...onchainGateway, pixelsPerUnit: "1.5" },
    "pixelsPerUnit",
    "error",
    "not an integer > 0",
    "whole number",
  ],
  [
    "maxPricePerUnit decimal wei",
    { ...onchainGateway, maxPricePerUnit: "0.5" },
    "maxPricePerUnit",
    "error",
    "neither whole wei",
    "integer >= 0",
  ],
  [
    "maxPricePerUnit negative",
    { ...onchainGateway, maxPricePerUnit: "-3" },
    "maxPricePerUnit",
    "error",
    "neither whole wei",
    "currency",
  ],
  [
    "nvidia with spaces",
    { ...offchainOrch, nvidia: "0, 1" },
    "nvidia",
    "error",
    "comma list of device ids",
    "0,1",
  ],
  ["nvidia names", { ...offchainOrch, nvidia: "gpu0" }, "nvidia", "error", "not 'all'", "all"],
  ["nvidia duplicate", { ...offchainOrch, nvidia: "0,0" }, "nvidia", "error", "twice", "once"],
  [
    "nvidia and netint",
    { ...offchainOrch, nvidia: "0", netint: "x" },
    "nvidia,netint",
    "error",
    "both -nvidia and -netint",
    "one kind",
  ],
];

describe("validateFlags: every problem", () => {
  it.each(cases)("%s", (_, values, flag, severity, message, fix) => {
    const problems = validateFlags(values);
    const found = problems.filter((p) => p.flag === flag);
    expect(found, JSON.stringify(problems, null, 1)).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity });
    expect(found[0]!.message).toContain(message);
    expect(found[0]!.fix).toContain(fix);
  });

  it("lists errors before warnings and formats a line per problem", () => {
    const problems = validateFlags({ broadcaster: true, maxSessions: 0 });
    expect(problems.map((p) => p.severity)).toEqual(["error", "warning"]);
    expect(hasErrors(problems)).toBe(true);
    expect(formatProblem(problems[0]!)).toMatch(/^error: -maxSessions 0 .* - give an integer/);
  });

  it("never echoes a secret", () => {
    const problems = validateFlags({
      ...onchainGateway,
      ethPassword: "hunter2",
      orchSecret: "s3cret",
      gateway: "x",
    });
    expect(JSON.stringify(problems)).not.toMatch(/hunter2|s3cret/);
  });
});

describe("https exception for chain RPCs", () => {
  it.each([
    ["localhost", true],
    ["127.0.0.1", true],
    ["127.1.0.5", true],
    ["[::1]", true],
    ["geth", true],
    ["geth.devnet.svc", true],
    ["geth.devnet.svc.cluster.local", true],
    ["rpc.example.com", false],
    ["10.0.0.5", false],
    ["geth.devnet", false],
    ["svc.example.com", false],
  ])("%s -> %s", (host, local) => {
    expect(isLocalOrInCluster(host)).toBe(local);
  });

  it("plain http to an in-cluster Service on mainnet is fine", () => {
    expect(
      validateFlags({ ...onchainGateway, ethUrl: "http://arb-node.chain.svc.cluster.local:8547" }),
    ).toEqual([]);
  });
});

describe("passwordFileProblem", () => {
  it.each([
    ["secret\n", "ends with a newline"],
    ["secret\r\n", "ends with a newline"],
    ["", "empty"],
  ])("%j -> %s", (content, message) => {
    const p = passwordFileProblem(content);
    expect(p?.flag).toBe("ethPassword");
    expect(p?.message).toContain(message);
    expect(p?.fix.length).toBeGreaterThan(10);
  });

  it("accepts a password without newline, as text or bytes", () => {
    expect(passwordFileProblem("secret")).toBeUndefined();
    expect(passwordFileProblem(new TextEncoder().encode("pa ss"))).toBeUndefined();
    expect(passwordFileProblem(new TextEncoder().encode("pa ss\n"))?.severity).toBe("error");
  });
});
