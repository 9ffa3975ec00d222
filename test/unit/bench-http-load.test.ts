// bench/support/http-load.ts, the load generator bench/api-get.ts runs as a child per round: it
// must stay cheap to start (Node's built-ins only: the whole API as the child slowed the first
// requests of every round and set the create p99), and count what it sent against a real server.
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runLoad } from "../../bench/support/http-load.ts";

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("bench/support/http-load.ts", () => {
  it("imports Node's built-ins only (it starts once per round, beside the servers it measures)", async () => {
    const source = await readFile(new URL("../../bench/support/http-load.ts", import.meta.url), "utf8");
    const specifiers = [...source.matchAll(/\bfrom\s+"([^"]+)"|\bimport\s*\(\s*"([^"]+)"/g)].map(
      (m) => m[1] ?? m[2],
    );
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => !s?.startsWith("node:"))).toEqual([]);
  });

  it("sends every POST with a name of its own over keep-alive connections, and counts refusals", async () => {
    const names = new Set<string>();
    const sockets = new Set<unknown>();
    let n = 0;
    const base = await listen((req, res) => {
      sockets.add(req.socket);
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        names.add((JSON.parse(body) as { name: string }).name);
        const refused = ++n % 5 === 0;
        const answer = refused ? '{"errors":["busy"]}' : "{}";
        // With a Content-Length, as fastify answers (the generator reads only that framing).
        res.writeHead(refused ? 503 : 200, {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(answer)),
          ...(refused ? { "retry-after": "2" } : {}),
        });
        res.end(answer);
      });
    });
    const r = await runLoad({
      url: `${base}/api/webhook`,
      method: "POST",
      token: "t",
      connections: 3,
      requests: 20,
      body: { url: "https://example.com/hook" },
    });
    expect(r.requests).toBe(20);
    expect(r.latencies).toHaveLength(20);
    expect(names.size).toBe(20);
    expect(sockets.size).toBe(3);
    expect(r.failures).toBe(4);
    expect(r.causes).toEqual({ '503 (Retry-After 2): {"errors":["busy"]}': 4 });
  });

  it("counts requests to a server that refuses the connection as failures, with the cause", async () => {
    const base = await listen(() => {});
    const port = new URL(base).port;
    await new Promise((r) => servers.pop()!.close(r));
    const r = await runLoad({
      url: `http://127.0.0.1:${port}/api/webhook/x`,
      method: "GET",
      token: "t",
      connections: 2,
      requests: 4,
    });
    expect(r.requests).toBe(4);
    expect(r.failures).toBe(4);
    expect(Object.keys(r.causes)).toEqual([`no answer: connect ECONNREFUSED 127.0.0.1:${port}`]);
  });
});
