// What the doctor reads of a node. An AI runner: /health decides, /hardware/stats adds its GPUs'
// memory, and a runner without /hardware/stats (older images) still counts as answering. An
// orchestrator: see below. Real HTTP, HTTP/2 and TLS on loopback.
import { createServer, type Server } from "node:http";
import { createSecureServer } from "node:http2";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { CertificatePins, NodeConnection } from "../../node/wire/connection.ts";
import { frameMessage, GRPC_CONTENT_TYPE, unframeMessage } from "../../node/wire/grpc.ts";
import { ANONYMOUS } from "../../node/wire/identity.ts";
import {
  decodeMessage,
  encodeMessage,
  type MessageInput,
  type OrchestratorRequestMessage,
} from "../../node/wire/messages.ts";
import { selfSignedCertificate } from "../../node/wire/self-signed-certificate.ts";
import { ephemeralIdentity } from "../../node/wire/signed-identity.ts";
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

// An orchestrator read by the doctor: /status and /metrics on the CLI port, GetOrchestrator over
// gRPC/TLS on the service port (a real HTTP/2 TLS server with a certificate made as the node
// makes it). The same answer gives the same reading whether or not it says it is simulated.
describe("reading an orchestrator", () => {
  const servers: { close(cb: () => void): void }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
  });

  async function orchestrator(status: Record<string, unknown>, answer: () => GrpcAnswer) {
    const cli = createServer((req, res) => {
      if (req.url === "/status") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify(status));
      }
      res.writeHead(404);
      res.end("404 page not found\n");
    });
    const service = createSecureServer(selfSignedCertificate("127.0.0.1"));
    const seen: OrchestratorRequestMessage[] = [];
    service.on("stream", (stream, headers) => {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        expect(headers[":path"]).toBe("/net.Orchestrator/GetOrchestrator");
        seen.push(decodeMessage("OrchestratorRequest", unframeMessage(Buffer.concat(chunks))));
        const a = answer();
        stream.respond({ ":status": 200, "content-type": GRPC_CONTENT_TYPE }, { waitForTrailers: true });
        stream.on("wantTrailers", () =>
          stream.sendTrailers({
            "grpc-status": String(a.status ?? 0),
            ...(a.message ? { "grpc-message": a.message } : {}),
          }),
        );
        stream.end(a.info ? frameMessage(encodeMessage("OrchestratorInfo", a.info)) : undefined);
      });
    });
    servers.push(cli, service);
    const port = (s: { listen: Server["listen"]; address: Server["address"] }) =>
      new Promise<number>((r) => s.listen(0, "127.0.0.1", () => r((s.address() as AddressInfo).port)));
    const t: NodeTarget = {
      pod: "o-0",
      uid: "u",
      ip: "127.0.0.1",
      cliPort: await port(cli),
      servicePort: await port(service as unknown as Server),
      role: "orchestrator",
      ready: true,
      hasLog: true,
      restartCount: 0,
      aiExpected: true,
    };
    const connection = new NodeConnection(`https://127.0.0.1:${t.servicePort}`, new CertificatePins(), "u/0");
    return { target: t, connection, seen };
  }

  const info = (version: string): MessageInput<"OrchestratorInfo"> => ({
    transcoder: "https://o.example:8935",
    priceInfo: { pricePerUnit: 1010, pixelsPerUnit: 1 },
    address: Buffer.alloc(20, 0x11),
    capabilities: { bitstring: [String((1n << 27n) | 1n)], version },
    ticketParams: {
      recipient: Buffer.alloc(20, 0x11),
      faceValue: Buffer.from([0x0d, 0xe0, 0xb6, 0xb3, 0xa7, 0x64, 0x00, 0x00]),
      winProb: Buffer.from([1]),
    },
    hardware: [{ gpuInfo: { "0": { id: "GPU-0", name: "RTX 3090", memoryTotal: 100, memoryFree: 10 } } }],
  });

  it.each([
    ["a node that says nothing of itself", {}, "0.9.1", false],
    ["a simulated node (its /status says so)", { Simulated: true }, "0.9.1", true],
    ["a simulated node (its version's build metadata says so)", {}, "0.9.1+simulated", true],
  ])(
    "%s: price, capabilities, GPUs and ticket parameters read the same way",
    async (_name, status, version, simulated) => {
      const o = await orchestrator(status, () => ({ info: info(version) }));
      const identity = ephemeralIdentity();
      const r = await readNode(o.target, {
        timeoutMs: 3_000,
        service: { connection: o.connection, identity },
      });
      o.connection.close();
      expect(r.failed).toBeUndefined();
      expect(r.answered).toEqual(["/status", "/net.Orchestrator/GetOrchestrator"]);
      expect(r.simulated).toBe(simulated);
      expect(r.price).toEqual({ pricePerUnit: "1010", pixelsPerUnit: 1 });
      expect(r.capabilities).toEqual([0, 27]);
      expect(r.gpus).toEqual([{ id: "GPU-0", name: "RTX 3090", memoryTotal: 100, memoryFree: 10 }]);
      expect(r.ticketParams).toMatchObject({
        recipient: `0x${"11".repeat(20)}`,
        faceValue: "1000000000000000000",
        winProb: "1",
      });
      // Asked as the operator's own identity, signed.
      expect(o.seen[0]?.address).toEqual(identity.address);
      expect(o.seen[0]?.sig).toEqual(identity.sig);
    },
  );

  it("another gRPC error is a failed read naming the gRPC status and the node's words", async () => {
    const o = await orchestrator({}, () => ({
      status: 2,
      message: "authentication failed: the discovery auth webhook refused",
    }));
    const r = await readNode(o.target, {
      timeoutMs: 3_000,
      service: { connection: o.connection, identity: ANONYMOUS },
    });
    o.connection.close();
    expect(r.failed).toMatchObject({ endpoint: "/net.Orchestrator/GetOrchestrator", reason: "grpc-status" });
    expect(r.failed?.message).toContain("authentication failed");
    expect(r.price).toBeUndefined();
  });

  it("a connection to be made is asked for only once /status answered", async () => {
    const o = await orchestrator({}, () => ({ info: info("0.9.1") }));
    let asked = 0;
    const connect = () => {
      asked++;
      return o.connection;
    };
    const r = await readNode(o.target, {
      timeoutMs: 3_000,
      service: { connection: connect, identity: ANONYMOUS },
    });
    expect(r.answered).toEqual(["/status", "/net.Orchestrator/GetOrchestrator"]);
    expect(asked).toBe(1);
    // Nothing listens on the CLI port: no connection is made to the service port.
    const closed = createServer();
    const port = await new Promise<number>((r) =>
      closed.listen(0, "127.0.0.1", () => r((closed.address() as AddressInfo).port)),
    );
    await new Promise<void>((r) => closed.close(() => r()));
    const down = await readNode(
      { ...o.target, cliPort: port },
      { timeoutMs: 3_000, service: { connection: connect, identity: ANONYMOUS } },
    );
    o.connection.close();
    expect(down.failed).toMatchObject({ endpoint: "/status", reason: "connection-refused" });
    expect(asked).toBe(1);
  });

  it("a full orchestrator refuses GetOrchestrator as it refuses gateways: it answers, and keeps what it advertised", async () => {
    let full = false;
    const o = await orchestrator({}, () =>
      full
        ? { status: 2, message: "Invalid orchestrator request: OrchestratorCapped" }
        : { info: info("0.9.1") },
    );
    const service = { connection: o.connection, identity: ephemeralIdentity() };
    const first = await readNode(o.target, { timeoutMs: 3_000, service });
    full = true;
    const second = await readNode(o.target, { timeoutMs: 3_000, service, previous: first });
    const third = await readNode(o.target, { timeoutMs: 3_000, service });
    o.connection.close();
    expect(second.failed).toBeUndefined();
    expect(second).toMatchObject({
      withheld: "at capacity",
      price: first.price,
      capabilities: first.capabilities,
    });
    expect(second.answered).toContain("/net.Orchestrator/GetOrchestrator");
    // Without an earlier reading there is nothing to keep, and still no failure.
    expect(third).toMatchObject({ withheld: "at capacity" });
    expect(third.failed).toBeUndefined();
    expect(third.price).toBeUndefined();
  });

  it.each([
    ["no valid signature", "Invalid orchestrator request: orchestrator req sig check failed"],
    ["no reserve", "insufficient sender reserve"],
  ])(
    "on chain, a node that will not quote an asker (%s) answers, and no price is made up",
    async (_why, message) => {
      const o = await orchestrator({}, () => ({ status: 2, message }));
      const r = await readNode(o.target, {
        timeoutMs: 3_000,
        service: { connection: o.connection, identity: ANONYMOUS },
      });
      o.connection.close();
      expect(r.failed).toBeUndefined();
      expect(r).toMatchObject({ withheld: "not quoted to the asker" });
      expect(r.price).toBeUndefined();
      expect(r.ticketParams).toBeUndefined();
    },
  );

  it("a service port that does not speak TLS is named as such", async () => {
    const o = await orchestrator({}, () => ({ info: info("0.9.1") }));
    const plain = new NodeConnection(`https://127.0.0.1:${o.target.cliPort}`, new CertificatePins(), "u/0");
    const r = await readNode(o.target, {
      timeoutMs: 3_000,
      service: { connection: plain, identity: ephemeralIdentity() },
    });
    plain.close();
    o.connection.close();
    expect(r.failed).toMatchObject({ endpoint: "/net.Orchestrator/GetOrchestrator", reason: "unreachable" });
    expect(r.failed?.message).toMatch(/does not speak TLS/);
  });
});

interface GrpcAnswer {
  info?: MessageInput<"OrchestratorInfo">;
  status?: number;
  message?: string;
}

describe("reading an on-chain gateway: what its orchestrators quoted it (/getNetworkCapabilities)", () => {
  const listed = {
    capabilities_names: { "0": "H.264" },
    orchestrators: [
      {
        address: "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e",
        local_address: "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e",
        orch_uri: "https://127.0.0.1:8935",
        capabilities: null,
        price_info: { pricePerUnit: 1010, pixelsPerUnit: 1 },
      },
      // Without a usable price: not a quote.
      {
        address: "",
        local_address: "",
        orch_uri: "https://x:1",
        price_info: { pricePerUnit: 5, pixelsPerUnit: 0 },
      },
    ],
  };
  async function gateway(answer: { status: number; body: string } | undefined): Promise<number> {
    server = createServer((req, res) => {
      if (req.url === "/status") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ Version: "0.9.1", OrchestratorPool: [] }));
      } else if (req.url === "/getNetworkCapabilities" && answer) {
        res.writeHead(answer.status, { "content-type": "application/json" });
        res.end(answer.body);
      } else {
        res.writeHead(404);
        res.end("404 page not found\n");
      }
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
    return (server.address() as AddressInfo).port;
  }
  const gw = (port: number, quotes: boolean): NodeTarget => ({
    ...target(port),
    pod: "gw-0",
    role: "gateway",
    quotes,
  });
  it.each<[string, { status: number; body: string } | undefined, boolean, object[] | undefined, string[]]>([
    [
      "listed with a price: a quote each (the ticket recipient and own address kept for matching)",
      { status: 200, body: JSON.stringify(listed) },
      true,
      [
        {
          orchUri: "https://127.0.0.1:8935",
          addresses: [
            "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e",
            "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e",
          ],
          pricePerUnit: "1010",
          pixelsPerUnit: 1,
        },
      ],
      ["/status", "/getNetworkCapabilities"],
    ],
    [
      "the node's 500 before any orchestrator quoted it: none yet, the node still answers",
      {
        status: 500,
        body: `network capabilities not available\n${JSON.stringify({ capabilities_names: {}, orchestrators: null })}`,
      },
      true,
      [],
      ["/status"],
    ],
    ["not served (404): not read, the node still answers", undefined, true, undefined, ["/status"]],
    ["off chain: not asked", { status: 200, body: JSON.stringify(listed) }, false, undefined, ["/status"]],
  ])("%s", async (_n, answer, quotes, want, answered) => {
    const port = await gateway(answer);
    const r = await readNode(gw(port, quotes), { timeoutMs: 2_000 });
    expect(r.failed).toBeUndefined();
    expect(r.quotes).toEqual(want);
    expect(r.answered).toEqual(answered);
  });
});
