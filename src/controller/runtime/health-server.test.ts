import { once } from "node:events";
import net from "node:net";
import { Gauge } from "prom-client";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../process/log.ts";
import { parseAddress, startHealthServer } from "./health-server.ts";
import { RuntimeMetrics } from "./metrics.ts";
import type { ObjectGaugeRegistry } from "./object-gauge.ts";

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

  it("streams a scrape of thousands of objects in pieces, exactly the registry's text", async () => {
    const metrics = new RuntimeMetrics({ processMetrics: false });
    const f = metrics.findingsMetrics();
    for (let i = 0; i < 3000; i++) {
      f.conditions?.({ kind: "Orchestrator", namespace: "video", name: `o-${i}` }, [
        { type: "Ready", status: "True", reason: "Serving" },
      ]);
    }
    const server = await startHealthServer("127.0.0.1:0", metrics.registry, NO_PROBES, silentLogger);
    try {
      const res = await fetch(`http://${server.address}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(metrics.registry.contentType);
      // Streamed: no length known up front.
      expect(res.headers.get("transfer-encoding")).toBe("chunked");
      const text = await res.text();
      expect(text).toBe(await metrics.registry.metrics());
      expect(text.split("\n").filter((l) => l.startsWith("livepeer_operator_condition{"))).toHaveLength(3000);
    } finally {
      await server.close();
    }
  });

  it("fails a scrape whose metric fails: a 500 before the first piece, a cut-off response after it", async () => {
    const failing = (registry: RuntimeMetrics["registry"]) =>
      new Gauge({
        name: "x_failing",
        help: "x",
        registers: [registry],
        collect() {
          throw new Error("collector broke");
        },
      });
    const early = new RuntimeMetrics({ processMetrics: false });
    early.registry.clear();
    failing(early.registry);
    const late = new RuntimeMetrics({ processMetrics: false });
    failing(late.registry);
    const servers = await Promise.all(
      [early, late].map((m) => startHealthServer("127.0.0.1:0", m.registry, NO_PROBES, silentLogger)),
    );
    try {
      const first = await fetch(`http://${servers[0]!.address}/metrics`);
      expect(first.status).toBe(500);
      expect(await first.text()).toContain("collector broke");
      // Never a complete-looking 200: the connection closes mid-answer.
      await expect(fetch(`http://${servers[1]!.address}/metrics`).then((r) => r.text())).rejects.toThrow();
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });

  it("stops rendering a scrape whose client went away while the answer was backed up", async () => {
    const metrics = new RuntimeMetrics({ processMetrics: false });
    const f = metrics.findingsMetrics();
    const conditions = Array.from({ length: 9 }, (_, i) => ({ type: `T${i}`, status: "True", reason: "R" }));
    for (let i = 0; i < 20_000; i++) {
      f.conditions?.({ kind: "Orchestrator", namespace: "video", name: `o-${i}` }, conditions);
    }
    const registry = metrics.registry as ObjectGaugeRegistry;
    let finished = false;
    const render = registry.chunks.bind(registry);
    registry.chunks = async function* () {
      try {
        yield* render();
      } finally {
        finished = true;
      }
    };
    const server = await startHealthServer("127.0.0.1:0", registry, NO_PROBES, silentLogger);
    try {
      const [host, port] = server.address.split(":");
      // A client that asks, reads the first bytes, then stops reading and goes away: the answer
      // (about 20 MB) is backed up in the socket buffers when it does.
      const socket = net.connect(Number(port), host);
      socket.write(`GET /metrics HTTP/1.1\r\nhost: ${server.address}\r\n\r\n`);
      await once(socket, "data");
      socket.pause();
      socket.destroy();
      const deadline = Date.now() + 20_000;
      while (!finished && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(finished).toBe(true);
    } finally {
      await server.close();
    }
  });
});

const NO_PROBES = { healthz: () => [], readyz: () => [] };
