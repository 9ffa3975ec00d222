// The trickle server over real HTTP (node:http on loopback), with a real client: segments published
// and read back, -1 waiting for the next write, 470 past the retention window, 404 for a channel
// that is not there, /next, and a channel deleted under a waiting subscriber.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { header, publishSegment, subscribeSegments, trickleRequest } from "./trickle-client.ts";
import { TRICKLE_PATH, TrickleServer } from "./trickle-server.ts";

let trickle: TrickleServer;
let server: Server;
let base: string;
const lines: string[] = [];

beforeEach(async () => {
  lines.length = 0;
  trickle = new TrickleServer({ log: (l) => lines.push(l) });
  server = createServer((req, res) => void trickle.handler(req, res, new URL(req.url ?? "/", "http://x")));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${TRICKLE_PATH}`;
});
afterEach(async () => {
  trickle.stop();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("trickle server", () => {
  it("answers a published segment to a subscriber with its sequence number and mime type", async () => {
    trickle.create("s1", "video/MP2T");
    const posted = await publishSegment(`${base}s1`, 0, Buffer.from("segment zero"), "video/MP2T");
    expect(posted.status).toBe(200);
    expect(header(posted.headers, "Lp-Trickle-Seq")).toBe("0");
    const got = await trickleRequest(`${base}s1/0`);
    expect(got.status).toBe(200);
    expect(got.body.toString()).toBe("segment zero");
    expect(header(got.headers, "Lp-Trickle-Seq")).toBe("0");
    expect(header(got.headers, "Content-Type")).toBe("video/MP2T");
    const next = await trickleRequest(`${base}s1/next`);
    expect(next.body.toString()).toBe("1");
    expect(header(next.headers, "Lp-Trickle-Latest")).toBe("1");
    expect(lines.some((l) => l.includes("Creating stream stream=s1"))).toBe(true);
  });

  it('says "segment" (the channel) as each published segment starts arriving', async () => {
    trickle.create("s9", "video/MP2T");
    const seen: string[] = [];
    trickle.on("segment", (name) => seen.push(name));
    await publishSegment(`${base}s9`, 0, Buffer.from("zero"), "video/MP2T");
    await publishSegment(`${base}s9`, 1, Buffer.from("one"), "video/MP2T");
    expect(seen).toEqual(["s9", "s9"]);
  });

  it("holds a subscriber at -1 until the next write and trickles the bytes as they come", async () => {
    trickle.create("s2", "video/MP2T");
    const received: string[] = [];
    const headers = new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = request(`${base}s2/-1`, (res) => {
        resolve(res.headers);
        res.on("data", (c: Buffer) => received.push(c.toString()));
      });
      req.once("error", reject);
      req.end();
    });
    // A publisher streaming one segment in two writes; the subscriber sees the first before the end.
    const post = request(`${base}s2/0`, { method: "POST", headers: { "Content-Type": "video/MP2T" } });
    const answered = new Promise<number>((resolve) =>
      post.once("response", (r) => resolve(r.statusCode ?? 0)),
    );
    post.write("first ");
    const h = await headers;
    expect(h["lp-trickle-seq"]).toBe("0");
    await expect.poll(() => received.join("")).toBe("first ");
    post.end("second");
    expect(await answered).toBe(200);
    await expect.poll(() => received.join("")).toBe("first second");
  });

  it("answers 470 with the write head for a segment past the window, 404 for an unknown channel", async () => {
    trickle.create("s3", "video/MP2T");
    for (let seq = 0; seq < 7; seq++)
      await publishSegment(`${base}s3`, seq, Buffer.from(`seg ${seq}`), "video/MP2T");
    const old = await trickleRequest(`${base}s3/0`);
    expect(old.status).toBe(470);
    expect(header(old.headers, "Lp-Trickle-Latest")).toBe("7");
    const kept = await trickleRequest(`${base}s3/-2`);
    expect(kept.body.toString()).toBe("seg 6");
    expect((await trickleRequest(`${base}nope/0`)).status).toBe(404);
    expect((await publishSegment(`${base}nope`, 0, Buffer.from("x"), "video/MP2T")).status).toBe(404);
    expect((await trickleRequest(`${base}nope`, { method: "POST" })).status).toBe(404);
    expect((await trickleRequest(`${base}s3`, { method: "POST" })).status).toBe(200);
  });

  it("ends a waiting subscriber when its channel is deleted, and answers 404 after", async () => {
    trickle.create("s4", "application/json");
    const closed: string[] = [];
    trickle.on("closed", (name) => closed.push(name));
    const got: string[] = [];
    const subscription = subscribeSegments(`${base}s4`, (_seq, data) => void got.push(data.toString()), {
      start: 0,
    });
    await publishSegment(`${base}s4`, 0, Buffer.from('{"a":1}'), "application/json");
    await expect.poll(() => got).toEqual(['{"a":1}']);
    expect((await trickleRequest(`${base}s4`, { method: "DELETE" })).status).toBe(200);
    expect(await subscription).toMatch(/^(closed|not found)$/);
    expect(closed).toEqual(["s4"]);
    expect((await trickleRequest(`${base}s4/next`)).status).toBe(404);
    expect((await trickleRequest(`${base}s4`, { method: "DELETE" })).status).toBe(400);
  });
});
