// A webhook receiver on loopback for delivery tests: records every request (headers, raw body)
// and answers as the test's script says (status, headers, body, a delay, or no answer at all).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { http } from "../../../src/process/builtin-http.ts";

export interface Received {
  at: number;
  headers: IncomingMessage["headers"];
  body: string;
  json: Record<string, unknown>;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer after this long. */
  delayMs?: number;
  /** Never answer (until the receiver closes). */
  hang?: boolean;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Requests for one event id, in arrival order. */
  forEvent(id: string): Received[];
  /** Resolves once `n` requests arrived (rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (r: Received, index: number) => Answer | Promise<Answer> = () => ({ status: 200 }),
): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const hanging = new Set<ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {}
      const r: Received = { at: Date.now(), headers: req.headers, body, json };
      const index = received.push(r) - 1;
      for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve();
      const a = await answer(r, index);
      if (a.hang) {
        hanging.add(res);
        return;
      }
      if (a.delayMs) await new Promise((resolve) => setTimeout(resolve, a.delayMs));
      if (res.destroyed) return;
      res.writeHead(a.status ?? 200, a.headers ?? {});
      res.end(a.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    forEvent: (id) => received.filter((r) => r.json.id === id),
    waitFor(n, timeoutMs = 20_000) {
      if (received.length >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} requests, waited for ${n}`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
