// What a simulated orchestrator sends, read by an independent implementation of the node's
// protocol: @grpc/grpc-js with types loaded by @grpc/proto-loader from go-livepeer's own
// lp_rpc.proto (src/node/wire), over TLS trusting the certificate the orchestrator made at start
// (as the official Python SDK trusts it on first use), with the client's own hostname check.

import { tmpdir } from "node:os";
import { connect } from "node:tls";
import {
  credentials,
  type GrpcObject,
  loadPackageDefinition,
  Metadata,
  type ServiceClientConstructor,
  status,
} from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { type HDNodeWallet, Wallet } from "ethers";
import { afterEach, describe, expect, it } from "vitest";
import { PROTO_PATH } from "../node/wire/messages.ts";
import { signedIdentity } from "../node/wire/signed-identity.ts";
import type { NodeSimulator } from "./simulator.ts";
import { loopbackOrchestrator } from "./testing/wire.ts";

const running: { stop(): Promise<void> | void }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

const net = loadPackageDefinition(
  loadSync(PROTO_PATH, { longs: String, bytes: Buffer, defaults: true, enums: String }),
).net as GrpcObject;
const Orchestrator = net.Orchestrator as ServiceClientConstructor;

type Unary = (
  request: object,
  callback: (err: (Error & { code: number; details: string }) | null, value: Record<string, unknown>) => void,
) => void;

/** The certificate the server presents, as PEM. */
function peerCertificate(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, rejectUnauthorized: false, ALPNProtocols: ["h2"] }, () => {
      const der = socket.getPeerCertificate(true).raw;
      socket.destroy();
      resolve(
        `-----BEGIN CERTIFICATE-----\n${der
          .toString("base64")
          .match(/.{1,64}/g)!
          .join("\n")}\n-----END CERTIFICATE-----\n`,
      );
    });
    socket.on("error", reject);
  });
}

async function orchestrator(...flags: string[]): Promise<{
  sim: NodeSimulator;
  lines: string[];
  call: (method: string, request: object) => Promise<Record<string, unknown>>;
}> {
  const { sim, lines } = await loopbackOrchestrator("-serviceAddr=127.0.0.1:8935", ...flags);
  running.push(sim);
  const { hostname, port } = new URL(sim.urls.http!);
  const pem = await peerCertificate(hostname, Number(port));
  const client = new Orchestrator(`${hostname}:${port}`, credentials.createSsl(Buffer.from(pem)));
  running.push({ stop: () => client.close() });
  const call = (method: string, request: object) =>
    new Promise<Record<string, unknown>>((resolve, reject) =>
      (client[method] as Unary).call(client, request, (err, value) => (err ? reject(err) : resolve(value))),
    );
  return { sim, lines, call };
}

// On chain an orchestrator answers signed requests (core/orchestrator.go VerifySig): both askers sign.
const gatewayWallet = Wallet.createRandom();
const GATEWAY_ADDRESS = gatewayWallet.address;
const signed = (wallet: Wallet | HDNodeWallet) => {
  const { address, sig } = signedIdentity(wallet as Wallet);
  return { address, sig };
};

describe("a simulated orchestrator read by grpc-js with lp_rpc.proto's types", () => {
  it("GetOrchestrator: service URI, the asking gateway's price (on chain), capabilities marked simulated, GPUs, an auth token", async () => {
    // On chain with no chain behind -ethUrl: prices answer, ticket parameters are left out.
    const o = await orchestrator(
      "-network=devnet",
      "-ethUrl=http://127.0.0.1:9",
      "-ethController=0x77A0865438f2EfD65667362D4a8937537CA7a5EF",
      `-ethKeystorePath=${tmpdir()}`,
      "-ethPassword=secret",
      "-autoAdjustPrice=false",
      "-pricePerUnit=1000",
      "-pixelsPerUnit=1",
      "-nvidia=0",
      "-maxSessions=7",
    );
    await fetch(`${o.sim.urls.cli}/setPriceForBroadcaster`, {
      method: "POST",
      body: new URLSearchParams({
        pricePerUnit: "600",
        pixelsPerUnit: "3",
        broadcasterEthAddr: GATEWAY_ADDRESS,
      }),
    }).then((r) => expect(r.status).toBe(200));

    const anonymous = await o.call("GetOrchestrator", signed(Wallet.createRandom()));
    expect(anonymous.transcoder).toBe("https://127.0.0.1:8935");
    expect(anonymous.priceInfo).toMatchObject({ pricePerUnit: "1000", pixelsPerUnit: "1" });
    const caps = anonymous.capabilities as { version: string; capacities: Record<string, number> };
    expect(caps.version).toBe("0.9.1+simulated");
    expect(caps.capacities["0"]).toBe(7);
    const [hardware] = anonymous.hardware as {
      gpuInfo: Record<string, { name: string; memoryTotal: string }>;
    }[];
    expect(hardware?.gpuInfo["0"]?.name).toBe("Simulated GPU");
    const token = anonymous.authToken as { token: Buffer; sessionId: string; expiration: string };
    expect(token.token).toHaveLength(32);
    expect(token.sessionId).toMatch(/^[0-9a-f]{8}$/);

    const asGateway = await o.call("GetOrchestrator", signed(gatewayWallet));
    expect(asGateway.priceInfo).toMatchObject({ pricePerUnit: "200", pixelsPerUnit: "1" });
  });

  it("EndTranscodingSession accepts only a token this run handed out; Ping answers (unsigned off chain); unknown methods are UNIMPLEMENTED", async () => {
    const o = await orchestrator();
    const { authToken } = await o.call("GetOrchestrator", {});
    const token = authToken as { token: Buffer; sessionId: string; expiration: string };
    await expect(
      o.call("EndTranscodingSession", { authToken: { ...token, token: Buffer.alloc(32, 1) } }),
    ).rejects.toMatchObject({ code: status.UNKNOWN, details: "Invalid auth token" });
    await expect(o.call("EndTranscodingSession", { authToken: token })).resolves.toEqual({});

    const pong = await o.call("Ping", { value: Buffer.from("are you there") });
    expect(pong.value).toEqual(Buffer.alloc(0));
    expect(o.lines.some((l) => l.includes("Received Ping request"))).toBe(true);

    const { hostname, port } = new URL(o.sim.urls.http!);
    const raw = new Orchestrator(
      `${hostname}:${port}`,
      credentials.createSsl(Buffer.from(await peerCertificate(hostname, Number(port)))),
    );
    running.push({ stop: () => raw.close() });
    const unimplemented = await new Promise<{ code: number; details: string }>((resolve) =>
      raw.makeUnaryRequest(
        "/net.Orchestrator/Transcode",
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.alloc(0),
        new Metadata(),
        (err) => resolve(err as unknown as { code: number; details: string }),
      ),
    );
    expect(unimplemented).toMatchObject({
      code: status.UNIMPLEMENTED,
      details: "unknown method Transcode for service net.Orchestrator",
    });
  });

  it("at the session limit GetOrchestrator fails as the node's CheckCapacity makes it fail", async () => {
    const o = await orchestrator("-maxSessions=1");
    o.sim.control.reachSessionLimit();
    await expect(o.call("GetOrchestrator", {})).rejects.toMatchObject({
      code: status.UNKNOWN,
      details: "Invalid orchestrator request: OrchestratorCapped",
    });
  });
});
