import { describe, expect, it } from "vitest";
import { parseRpcUrl, RpcUrlError } from "./rpc-url.ts";

describe("parseRpcUrl", () => {
  it.each([
    // url, remote, secure, readable
    ["https://arb1.arbitrum.io/rpc", true, true, true],
    ["http://arb1.arbitrum.io/rpc", true, false, true],
    ["wss://arb-mainnet.g.alchemy.com/v2/key", true, true, false],
    ["ws://arb-mainnet.g.alchemy.com/v2/key", true, false, false],
    ["http://127.0.0.1:8545", false, false, true],
    ["http://127.1.2.3:8545", false, false, true],
    ["http://localhost:8545", false, false, true],
    ["http://[::1]:8545", false, false, true],
    ["http://arbitrum-rpc:8547", false, false, true],
    ["http://arbitrum.rpc.svc:8547", false, false, true],
    ["http://arbitrum.rpc.svc.cluster.local:8547", false, false, true],
    // An IP literal other than loopback: a pod cannot tell a VPC peer from the internet.
    ["http://10.0.0.5:8547", true, false, true],
    ["http://rpc.internal.example:8547", true, false, true],
  ])("%s: remote %s, secure %s, readable %s", (url, remote, secure, readable) => {
    expect(parseRpcUrl(url)).toMatchObject({ remote, secure, readable });
  });

  it("a devnet's RPC is never remote, whatever its address", () => {
    expect(parseRpcUrl("http://10.213.0.1:8545", { devnet: true }).remote).toBe(false);
  });

  it.each([
    ["https://arb-mainnet.g.alchemy.com/v2/SECRETKEY", "https://arb-mainnet.g.alchemy.com/..."],
    ["https://user:SECRETKEY@rpc.example.com", "https://rpc.example.com"],
    ["https://rpc.example.com/?key=SECRETKEY", "https://rpc.example.com/..."],
    ["http://127.0.0.1:8545", "http://127.0.0.1:8545"],
    ["http://127.0.0.1:8545/", "http://127.0.0.1:8545"],
  ])("shows %s as %s (an API key never shows)", (url, shown) => {
    expect(parseRpcUrl(url).shown).toBe(shown);
  });

  it.each([
    ["not a url", /is not a URL/],
    ["ftp://rpc.example.com", /has scheme ftp: a chain RPC is http\(s\):\/\/ or ws\(s\):\/\//],
  ])("refuses %s", (url, message) => {
    expect(() => parseRpcUrl(url)).toThrow(RpcUrlError);
    expect(() => parseRpcUrl(url)).toThrow(message);
  });
});
