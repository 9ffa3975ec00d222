// The wire layer alone: messages against the .proto, gRPC framing, certificate pins, the signed
// identity, and a unary call over a real HTTP/2 server on loopback (h2c: the TLS path is tested
// against the node simulator, which makes its certificate as the node does).
import { createServer, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { getAddress, verifyMessage } from "ethers";
import { afterEach, describe, expect, it } from "vitest";
import { orchestratorInfoOf } from "../client/orchestrator-info.ts";
import { CertificatePins, NodeConnection } from "./connection.ts";
import {
  decodeGrpcMessage,
  encodeGrpcMessage,
  frameMessage,
  GRPC_CONTENT_TYPE,
  methodPath,
  unframeMessage,
} from "./grpc.ts";
import { ANONYMOUS } from "./identity.ts";
import { bigIntToBytes, bytesToBigInt, decodeMessage, encodeMessage } from "./messages.ts";
import { ephemeralIdentity, orchestratorInfoMessage } from "./signed-identity.ts";

describe("messages", () => {
  it("round-trip an OrchestratorInfo with int64 prices, maps and bytes", () => {
    const bytes = encodeMessage("OrchestratorInfo", {
      transcoder: "https://o:8935",
      priceInfo: { pricePerUnit: "9007199254740993", pixelsPerUnit: 1000n },
      address: Buffer.alloc(20, 0xab),
      capabilities: {
        bitstring: ["1152921504606846975"],
        capacities: { 0: 8 },
        version: "0.9.1+simulated",
        constraints: {
          minVersion: "",
          PerCapability: { 27: { models: { m: { warm: true, capacity: 2 } } } },
        },
      },
      ticketParams: { faceValue: bigIntToBytes(10n ** 18n), winProb: bigIntToBytes(2n ** 255n) },
    });
    const m = decodeMessage("OrchestratorInfo", bytes);
    expect(m.priceInfo).toMatchObject({ pricePerUnit: "9007199254740993", pixelsPerUnit: "1000" });
    expect(m.capabilities?.constraints?.PerCapability["27"]?.models.m).toMatchObject({
      warm: true,
      capacity: 2,
    });
    expect(bytesToBigInt(m.ticketParams?.faceValue)).toBe(10n ** 18n);
    expect(m.authToken).toBeUndefined();
    const info = orchestratorInfoOf(m);
    expect(info).toMatchObject({
      serviceUri: "https://o:8935",
      address: `0x${"ab".repeat(20)}`,
      priceInfo: { pricePerUnit: "9007199254740993", pixelsPerUnit: "1000" },
      ticketParams: { faceValue: "1000000000000000000", winProb: (2n ** 255n).toString() },
    });
    expect(info.capabilities.ids).toContain(59);
    expect(info.capabilities.aiModels).toEqual([
      { capability: 27, modelId: "m", warm: true, capacity: 2, capacityInUse: 0 },
    ]);
  });

  it.each([
    ["a zero pixelsPerUnit", { pricePerUnit: 1, pixelsPerUnit: 0 }, "price_info.pixelsPerUnit"],
    ["a negative price", { pricePerUnit: -1, pixelsPerUnit: 1 }, "price_info.pricePerUnit"],
  ])("%s is an invalid-field error naming it", (_name, priceInfo, field) => {
    const m = decodeMessage("OrchestratorInfo", encodeMessage("OrchestratorInfo", { priceInfo }));
    expect(() => orchestratorInfoOf(m)).toThrow(expect.objectContaining({ reason: "invalid-field", field }));
  });

  it("bytes that are not the message fail to decode", () => {
    expect(() => decodeMessage("OrchestratorInfo", Buffer.from([0xff, 0xff, 0xff]))).toThrow();
  });

  it("big-endian integers as TicketParams carries them (0 is no bytes, as Go's big.Int)", () => {
    expect(bigIntToBytes(0n)).toEqual(Buffer.alloc(0));
    expect(bigIntToBytes(256n)).toEqual(Buffer.from([1, 0]));
    expect(bytesToBigInt(Buffer.from([1, 0]))).toBe(256n);
    expect(bytesToBigInt(undefined)).toBe(0n);
  });
});

describe("gRPC framing", () => {
  it("frames one message and reads it back", () => {
    const framed = frameMessage(Buffer.from("abc"));
    expect([...framed.subarray(0, 5)]).toEqual([0, 0, 0, 0, 3]);
    expect(unframeMessage(framed).toString()).toBe("abc");
  });

  it.each([
    ["a short prefix", Buffer.from([0, 0]), /5-byte prefix/],
    ["a compressed message", Buffer.from([1, 0, 0, 0, 0]), /compressed/],
    ["a truncated frame", Buffer.from([0, 0, 0, 0, 9, 1]), /announces 9 bytes but 1 follow/],
  ])("refuses %s", (_name, body, why) => {
    expect(() => unframeMessage(body)).toThrow(why);
  });

  it("percent-encodes grpc-message outside printable ASCII", () => {
    const text = "Invalid orchestrator request: 100% über";
    const encoded = encodeGrpcMessage(text);
    expect(encoded).toMatch(/^[\x20-\x7e]+$/);
    expect(encoded).toContain("100%25");
    expect(decodeGrpcMessage(encoded)).toBe(text);
  });
});

describe("CertificatePins", () => {
  it.each([
    ["the first certificate is pinned", [["a", "k1"]], [undefined]],
    [
      "the same one again is accepted",
      [
        ["a", "k1"],
        ["a", "k1"],
      ],
      [undefined, undefined],
    ],
    [
      "another one in the same run is refused",
      [
        ["a", "k1"],
        ["b", "k1"],
      ],
      [undefined, "another TLS certificate"],
    ],
    [
      "after a refusal, the next one is pinned anew",
      [
        ["a", "k1"],
        ["b", "k1"],
        ["b", "k1"],
        ["b", "k1"],
      ],
      [undefined, "another TLS certificate", undefined, undefined],
    ],
    [
      "another one after a restart is pinned at once",
      [
        ["a", "k1"],
        ["b", "k2"],
        ["b", "k2"],
      ],
      [undefined, undefined, undefined],
    ],
    [
      "after the re-pin, the old one is refused",
      [
        ["a", "k1"],
        ["b", "k2"],
        ["a", "k2"],
      ],
      [undefined, undefined, "another TLS certificate"],
    ],
  ] as const)("%s", (_name, seen, expected) => {
    const pins = new CertificatePins();
    const got = seen.map(([fingerprint, key]) => pins.check("o:8935", fingerprint, key));
    expect(got.map((g) => (g === undefined ? undefined : "another TLS certificate"))).toEqual(expected);
    if (expected.some((e) => e)) expect(got.find((g) => g)).toMatch(/pinned on first use/);
  });
});

describe("identity", () => {
  it("signs its own address as a gateway does (personal-sign of keccak256 of the address text)", () => {
    const id = ephemeralIdentity();
    expect(id.address).toHaveLength(20);
    expect(id.sig).toHaveLength(65);
    expect([27, 28]).toContain(id.sig[64]);
    const address = `0x${id.address.toString("hex")}`;
    const recovered = verifyMessage(
      orchestratorInfoMessage(getAddress(address)),
      `0x${id.sig.toString("hex")}`,
    );
    expect(recovered.toLowerCase()).toBe(address);
  });

  it("two processes' identities differ (a key made at start, never stored)", () => {
    expect(ephemeralIdentity().address.equals(ephemeralIdentity().address)).toBe(false);
    expect(ANONYMOUS.address).toHaveLength(0);
  });
});

describe("NodeConnection", () => {
  let server: Http2Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function grpcServer(
    handle: (path: string, body: Buffer) => { status: number; message?: string; reply?: Buffer },
  ) {
    server = createServer();
    server.on("stream", (stream, headers) => {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (headers["content-type"] !== GRPC_CONTENT_TYPE) {
          stream.respond({ ":status": 415 });
          stream.end();
          return;
        }
        const out = handle(String(headers[":path"]), Buffer.concat(chunks));
        stream.respond({ ":status": 200, "content-type": GRPC_CONTENT_TYPE }, { waitForTrailers: true });
        stream.on("wantTrailers", () =>
          stream.sendTrailers({
            "grpc-status": String(out.status),
            ...(out.message ? { "grpc-message": encodeGrpcMessage(out.message) } : {}),
          }),
        );
        stream.end(out.reply ? frameMessage(out.reply) : undefined);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("makes a unary call and decodes the answer; calls share one connection", async () => {
    const seen: string[] = [];
    const url = await grpcServer((path, body) => {
      seen.push(path);
      const req = decodeMessage("PingPong", unframeMessage(body));
      return {
        status: 0,
        reply: encodeMessage("PingPong", { value: Buffer.concat([req.value, Buffer.from("!")]) }),
      };
    });
    const c = new NodeConnection(url, new CertificatePins());
    const sessions = new Set<unknown>();
    server!.on("session", (s) => sessions.add(s));
    for (const v of ["a", "b"]) {
      const pong = await c.call("Ping", { type: "PingPong", value: { value: Buffer.from(v) } }, "PingPong");
      expect(pong.value.toString()).toBe(`${v}!`);
    }
    expect(seen).toEqual([methodPath("Ping"), methodPath("Ping")]);
    expect(sessions.size).toBe(1);
    c.close();
  });

  it("a gRPC error status is a grpc-status failure with the code and the node's message", async () => {
    const url = await grpcServer(() => ({
      status: 2,
      message: "Invalid orchestrator request: orchestrator req sig check failed",
    }));
    const c = new NodeConnection(url, "any");
    const err = await c
      .call("GetOrchestrator", { type: "OrchestratorRequest", value: ANONYMOUS }, "OrchestratorInfo")
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      reason: "grpc-status",
      grpcCode: 2,
      endpoint: "/net.Orchestrator/GetOrchestrator",
    });
    expect((err as Error).message).toContain(
      "gRPC UNKNOWN: Invalid orchestrator request: orchestrator req sig check failed",
    );
    c.close();
  });

  it("nothing listening is connection-refused; a hung answer is a timeout naming the limit", async () => {
    const url = await grpcServer(() => ({ status: 0, reply: Buffer.alloc(0) }));
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const refused = new NodeConnection(url, "any");
    expect(
      await refused.call("Ping", { type: "PingPong", value: {} }, "PingPong").catch((e: unknown) => e),
    ).toMatchObject({
      reason: "connection-refused",
    });
    server = createServer();
    server.on("stream", () => {}); // never answers
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const hung = new NodeConnection(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "any");
    const err = await hung
      .call("Ping", { type: "PingPong", value: {} }, "PingPong", { timeoutMs: 150 })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: "timeout" });
    expect((err as Error).message).toMatch(/no complete answer within 150 ms/);
    hung.close();
  });
});
