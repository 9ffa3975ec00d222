// An AI runner read by the doctor: /health decides, /hardware/stats adds its GPUs' memory, and a
// runner without /hardware/stats (older images) still counts as answering. Real HTTP on loopback.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { readNode } from "./node-reading.ts";
import type { NodeTarget } from "./target.ts";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function runner(routes: Record<string, unknown>): Promise<number> {
  server = createServer((req, res) => {
    const body = routes[req.url ?? ""];
    res.writeHead(body === undefined ? 404 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify(body ?? { detail: "Not Found" }));
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
  return (server.address() as AddressInfo).port;
}

const target = (port: number): NodeTarget => ({
  pod: "r-0",
  uid: "u",
  ip: "127.0.0.1",
  cliPort: port,
  role: "aiRunner",
  ready: true,
  hasLog: true,
  restartCount: 0,
  aiExpected: false,
});
const stats = { gpu_stats: { "0": { id: "GPU-0", name: "A100", memory_total: 100, memory_free: 10 } } };

describe("reading an AI runner", () => {
  it.each([
    [
      "loading its model",
      { "/health": { status: "LOADING" }, "/hardware/stats": stats },
      "LOADING",
      ["/health", "/hardware/stats"],
    ],
    [
      "serving",
      { "/health": { status: "ok" }, "/hardware/stats": stats },
      "OK",
      ["/health", "/hardware/stats"],
    ],
    ["an older runner without /hardware/stats", { "/health": { status: "IDLE" } }, "IDLE", ["/health"]],
  ])("%s", async (_, routes, health, answered) => {
    const r = await readNode(target(await runner(routes)), { timeoutMs: 2_000 });
    expect(r).toMatchObject({ pod: "r-0", health, answered });
    expect(r.failed).toBeUndefined();
    if (answered.includes("/hardware/stats"))
      expect(r.gpus).toEqual([{ id: "GPU-0", name: "A100", memoryTotal: 100, memoryFree: 10 }]);
  });

  it("not answering /health: failed, naming the endpoint", async () => {
    const r = await readNode(target(await runner({})), { timeoutMs: 2_000 });
    expect(r.failed).toMatchObject({ endpoint: "/health", reason: "http-status" });
    expect(r.health).toBeUndefined();
  });
});
