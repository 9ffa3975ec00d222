import { describe, expect, it } from "vitest";
import { DEFAULT_PORTS, defaultAddr, formatHostPort, nodeAddresses } from "./addresses.ts";

describe("nodeAddresses", () => {
  it("gateway defaults: loopback, CLI 5935, HTTP 9935 (real node), RTMP 1935", () => {
    expect(nodeAddresses({ gateway: true }, "gateway")).toEqual({
      cli: { host: "127.0.0.1", port: 5935 },
      http: { host: "127.0.0.1", port: 9935 },
      httpScheme: "http",
      rtmp: { host: "127.0.0.1", port: 1935 },
    });
  });

  it("orchestrator: CLI on loopback 7935, service port from -serviceAddr on every interface, TLS", () => {
    expect(
      nodeAddresses({ orchestrator: true, serviceAddr: "orch.example.com:18935" }, "orchestrator"),
    ).toEqual({
      cli: { host: "127.0.0.1", port: DEFAULT_PORTS.orchestratorCli },
      http: { host: "", port: 18935 },
      httpScheme: "https",
    });
  });

  it("explicit addresses win; :port takes the default host; a bare host the default port", () => {
    const a = nodeAddresses({ cliAddr: "0.0.0.0:7935", httpAddr: "http://0.0.0.0:8935/" }, "orchestrator");
    expect(a.cli).toEqual({ host: "0.0.0.0", port: 7935 });
    expect(a.http).toEqual({ host: "0.0.0.0", port: 8935 });
    expect(a.httpScheme).toBe("http");
    expect(defaultAddr(":6000", "127.0.0.1", 1)).toEqual({ host: "127.0.0.1", port: 6000 });
    expect(defaultAddr("10.0.0.1", "127.0.0.1", 7935)).toEqual({ host: "10.0.0.1", port: 7935 });
    expect(defaultAddr("[::1]:80", "", 1)).toEqual({ host: "::1", port: 80 });
  });

  it("transcoder and AI worker have only a CLI port", () => {
    expect(nodeAddresses({}, "transcoder")).toEqual({ cli: { host: "127.0.0.1", port: 6935 } });
    expect(nodeAddresses({}, "aiWorker")).toEqual({ cli: { host: "127.0.0.1", port: 4935 } });
  });

  it("refuses an address without a usable port", () => {
    expect(() => defaultAddr("host:http", "", 1)).toThrow('"host:http" has no valid port');
  });

  it("formats IPv6 hosts in brackets", () => {
    expect(formatHostPort({ host: "::1", port: 5 })).toBe("[::1]:5");
    expect(formatHostPort({ host: "", port: 5 })).toBe(":5");
  });
});
