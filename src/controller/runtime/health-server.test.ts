import { describe, expect, it } from "vitest";
import { silentLogger } from "../../process/log.ts";
import { parseAddress, startHealthServer } from "./health-server.ts";
import { RuntimeMetrics } from "./metrics.ts";

describe("health server", () => {
  it.each([
    ["127.0.0.1:8080", { host: "127.0.0.1", port: 8080 }],
    ["0.0.0.0:8080", { host: "0.0.0.0", port: 8080 }],
    [":8080", { host: "0.0.0.0", port: 8080 }],
    ["[::1]:9090", { host: "::1", port: 9090 }],
  ])("parses %s", (input, expected) => {
    expect(parseAddress(input)).toEqual(expected);
  });

  it.each(["8080", "localhost", "1.2.3.4:99999"])("rejects %s with an example", (input) => {
    expect(() => parseAddress(input)).toThrow(/host:port|port/);
  });

  it("serves /metrics, and /healthz and /readyz that explain failures", async () => {
    const metrics = new RuntimeMetrics({ processMetrics: false });
    metrics.controller("webhook", 1);
    let synced = false;
    const server = await startHealthServer(
      "127.0.0.1:0",
      metrics.registry,
      {
        healthz: () => [{ name: "ping", ok: true }],
        readyz: () => [{ name: "cache-secrets", ok: synced, detail: "not synced yet" }],
      },
      silentLogger,
    );
    try {
      const base = `http://${server.address}`;
      const m = await fetch(`${base}/metrics`);
      expect(m.status).toBe(200);
      expect(await m.text()).toContain("controller_runtime_reconcile_total");
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const notReady = await fetch(`${base}/readyz`);
      expect(notReady.status).toBe(500);
      expect(await notReady.text()).toContain("[-]cache-secrets failed: not synced yet");
      synced = true;
      const ready = await fetch(`${base}/readyz?verbose`);
      expect(ready.status).toBe(200);
      expect(await ready.text()).toContain("[+]cache-secrets ok");
      expect((await fetch(`${base}/nope`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
