// The HTTP/2 connection against a real node:http2 server on loopback (cleartext h2, same
// framing as the API server's TLS one): requests and bodies, GOAWAY retiring it, and a PING with
// no answer (a frozen TCP relay standing in for a dropped network path) destroying it.
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { H2Session } from "./h2-session.ts";
import { bodyBytes } from "./kube-client.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

function h2Server(): {
  server: http2.Http2Server;
  sessions: http2.ServerHttp2Session[];
  /** Streams of /hang the server has open. */
  hanging: http2.ServerHttp2Stream[];
} {
  const server = http2.createServer();
  const sessions: http2.ServerHttp2Session[] = [];
  const hanging: http2.ServerHttp2Stream[] = [];
  server.on("session", (s) => sessions.push(s));
  server.on("stream", (stream, headers) => {
    if (headers[":path"] === "/hang") {
      hanging.push(stream); // never answers: an open stream, like a watch
      return;
    }
    let body = "";
    stream.on("data", (c) => {
      body += c;
    });
    stream.on("end", () => {
      stream.respond({ ":status": 201, "content-type": "application/json" });
      stream.end(
        JSON.stringify({
          method: headers[":method"],
          path: headers[":path"],
          auth: headers.authorization,
          body,
        }),
      );
    });
  });
  cleanups.push(() => {
    for (const s of sessions) s.destroy();
  });
  return { server, sessions, hanging };
}

describe("H2Session", () => {
  it("reads an answer that arrived whole before reading began (no ERR_STREAM_PREMATURE_CLOSE)", async () => {
    // Under load the whole answer can be in before the caller reads: the stream is already
    // closed with its body buffered. `for await` over it threw; every one of these must read.
    const { server } = h2Server();
    const port = await listen(server);
    const session = new H2Session(`http://127.0.0.1:${port}`, {}, () => {});
    cleanups.push(() => session.close());
    for (let i = 0; i < 5; i++) {
      const res = await session.request("POST", "/late", {}, `{"n":${i}}`, undefined);
      // timing-check: the scenario itself, an answer complete before its reading begins.
      await new Promise((r) => setTimeout(r, 30));
      const answer = JSON.parse((await bodyBytes(res.body)).toString());
      expect(answer).toMatchObject({ path: "/late", body: `{"n":${i}}` });
    }
  });

  it("sends method, path, headers and body on one connection, and reads the answer", async () => {
    const { server, sessions } = h2Server();
    const port = await listen(server);
    const session = new H2Session(`http://127.0.0.1:${port}`, {}, () => {});
    cleanups.push(() => session.close());
    const answers = await Promise.all(
      [1, 2, 3].map(async (i) => {
        const res = await session.request(
          "POST",
          `/api/v1/x?i=${i}`,
          { Authorization: "Bearer t" },
          `{"i":${i}}`,
          undefined,
        );
        return { status: res.status, ...JSON.parse((await bodyBytes(res.body)).toString()) };
      }),
    );
    expect(answers).toEqual(
      [1, 2, 3].map((i) => ({
        status: 201,
        method: "POST",
        path: `/api/v1/x?i=${i}`,
        auth: "Bearer t",
        body: `{"i":${i}}`,
      })),
    );
    expect(sessions).toHaveLength(1);
    expect(session.usable).toBe(true);
  });

  it("a GOAWAY retires it: no longer usable, and the owner is told once", async () => {
    const { server, sessions } = h2Server();
    const port = await listen(server);
    const sockets = () => process.getActiveResourcesInfo().filter((r) => r === "TCPSocketWrap").length;
    const before = sockets();
    let gone = 0;
    const session = new H2Session(`http://127.0.0.1:${port}`, {}, () => gone++);
    cleanups.push(() => session.close());
    await bodyBytes((await session.request("GET", "/", {}, undefined, undefined)).body);
    sessions[0]!.goaway();
    await expect.poll(() => session.usable).toBe(false);
    // The second event that could tell the owner again is the connection's close: the server
    // ends it, and once both of its sockets are gone the client has seen its close.
    sessions[0]!.destroy();
    await expect.poll(sockets, { timeout: 5_000 }).toBe(before);
    expect(gone).toBe(1);
  });

  it("a connection that stops answering is destroyed by an unanswered PING; its open stream fails", async () => {
    const { server, hanging } = h2Server();
    const port = await listen(server);
    // A TCP relay that can freeze: bytes stop flowing both ways, no RST, as on a dropped path.
    let frozen = false;
    const sockets: net.Socket[] = [];
    const relay = net.createServer((client) => {
      const upstream = net.connect(port, "127.0.0.1");
      sockets.push(client, upstream);
      client.on("data", (d) => {
        if (!frozen) upstream.write(d);
      });
      upstream.on("data", (d) => {
        if (!frozen) client.write(d);
      });
      client.on("error", () => {});
      upstream.on("error", () => {});
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    cleanups.push(() => {
      for (const s of sockets) s.destroy();
    });
    const relayPort = await listen(relay);
    let gone = 0;
    const session = new H2Session(`http://127.0.0.1:${relayPort}`, {}, () => gone++, {
      pingEveryMs: 100,
      pingTimeoutMs: 300,
    });
    cleanups.push(() => session.close());
    await bodyBytes((await session.request("GET", "/", {}, undefined, undefined)).body);
    // A stream stays open, as a watch does.
    const controller = new AbortController();
    cleanups.push(() => controller.abort());
    const watch = session.request("GET", "/hang", {}, undefined, controller.signal).catch((e: Error) => e);
    await expect.poll(() => hanging.length).toBe(1);
    frozen = true;
    const outcome = await watch;
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toMatch(/did not answer an HTTP\/2 PING/);
    expect(session.usable).toBe(false);
    await expect.poll(() => gone).toBe(1);
  });
});
