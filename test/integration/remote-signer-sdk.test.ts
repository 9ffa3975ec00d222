// The simulated remote signer on the real devnet, used by the official Python SDK as go-livepeer's
// signer would be: it holds gateway-0's devnet key (funded in the TicketBroker), signs the SDK's
// GetOrchestrator requests, so a devnet orchestrator simulator (which checks the signature as the
// node does on chain) quotes ticket parameters for the signer's address; its /discover-orchestrators
// answers 503 until its cache holds an orchestrator, then lists it; its payments are real tickets
// on those parameters, and its auth webhook (a real server on loopback) decides, its refusal
// reaching the SDK with its reason.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getAddress, hashMessage, recoverAddress } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { ensureGatewaySdk, GATEWAY_DRIVER, type GatewaySdk } from "../../src/dev/python/environment.ts";
import { freePort } from "../../src/devnet/processes.ts";
import { pushStream } from "../../src/media/push-stream.ts";
import { bytesToBigInt, decodeMessage } from "../../src/node/wire/messages.ts";
import { ticketHash } from "../../src/simulator/signer/tickets.ts";
import {
  type NodeSimulator,
  type NodeStartError,
  startNodeSimulator,
} from "../../src/simulator/simulator.ts";
import { type DevnetBed, startDevnetBed } from "./support/devnet-bed.ts";

const MODEL = "stabilityai/sdxl-turbo";

let bed: DevnetBed;
let sdk: GatewaySdk;
let signer: NodeSimulator | undefined;
let orchestrator: NodeSimulator | undefined;
let orchPort: number;
let webhook: Server;
const signerLog: string[] = [];
const orchLog: string[] = [];
const hookCalls: { headers: Record<string, string[]>; state: Record<string, unknown> | null }[] = [];
let hookAnswer: Record<string, unknown> = { status: 200 };

const chainFlags = (account: string) => {
  const a = bed.account(account);
  return [
    "-network=devnet",
    `-ethUrl=${bed.state.url}`,
    `-ethController=${bed.state.contracts.Controller}`,
    `-ethKeystorePath=${a.keystoreFile}`,
    `-ethPassword=${a.passwordFile}`,
  ];
};

beforeAll(async () => {
  const [b, s] = await Promise.allSettled([startDevnetBed("remote-signer-sdk"), ensureGatewaySdk(() => {})]);
  if (b.status === "fulfilled") bed = b.value;
  if (s.status === "rejected") throw s.reason;
  if (b.status === "rejected") throw b.reason;
  sdk = s.value;
  webhook = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    hookCalls.push(JSON.parse(Buffer.concat(chunks).toString()));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(hookAnswer));
  });
  await new Promise<void>((r) => webhook.listen(0, "127.0.0.1", r));
  orchPort = await freePort();
  // The signer first, its only orchestrator not up yet: its discovery cache starts empty.
  signer = await startNodeSimulator({
    argv: [
      "-remoteSigner",
      ...chainFlags("gateway-0"),
      `-httpAddr=127.0.0.1:${await freePort()}`,
      "-cliAddr=127.0.0.1:0",
      "-remoteDiscovery",
      `-orchAddr=https://127.0.0.1:${orchPort}`,
      `-remoteSignerWebhookUrl=http://127.0.0.1:${(webhook.address() as AddressInfo).port}/auth?token=hook-secret`,
    ],
    log: (l) => signerLog.push(l),
  });
});

afterAll(async () => {
  await Promise.all([signer?.stop(), orchestrator?.stop()]);
  await new Promise<void>((r) => (webhook ? webhook.close(() => r()) : r()));
  await bed?.stop();
});

async function driver(args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const r = await sdk.run(GATEWAY_DRIVER, args, { timeoutMs: 60_000 });
  try {
    return { code: r.code, json: JSON.parse(r.stdout) as Record<string, unknown> };
  } catch {
    throw new Error(`the driver printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
}

const signerUrl = () => signer!.urls.http!;
const context = () =>
  `signer:\n${signerLog.slice(-15).join("\n")}\norchestrator:\n${orchLog.slice(-10).join("\n")}`;

describe("a remote signer simulator on the devnet, used by the official Python SDK", () => {
  it("starts as the node does: its webhook URL redacted, the signer server's lines, gateway-0's address", async () => {
    expect(signer?.role).toBe("remoteSigner");
    const text = signerLog.join("\n");
    expect(text).toContain("Using remote signer webhook URL http://127.0.0.1:");
    expect(text).not.toContain("hook-secret");
    expect(text).toMatch(/Starting remote signer server on 127\.0\.0\.1:\d+/);
    expect(text).toMatch(/Starting Remote Signer server on 127\.0\.0\.1:\d+/);
    expect(text).toContain(bed.account("gateway-0").address);
  });

  it("discover_orchestrators(signer_url=...) is refused (503) until the signer's cache holds an orchestrator, then lists it", async () => {
    const empty = await driver(["discover", "--signer-url", signerUrl()]);
    expect(empty.code, JSON.stringify(empty.json)).toBe(1);
    expect(String(empty.json.error)).toMatch(/HTTP 503 .*Service Unavailable Error/);

    orchestrator = await startNodeSimulator({
      argv: [
        "-orchestrator",
        "-transcoder",
        ...chainFlags("orchestrator-0"),
        `-serviceAddr=127.0.0.1:${orchPort}`,
        `-httpAddr=127.0.0.1:${orchPort}`,
        "-cliAddr=127.0.0.1:0",
        "-pricePerUnit=1000",
        "-aiWorker",
        `-aiModels=text-to-image:${MODEL}:true`,
      ],
      log: (l) => orchLog.push(l),
    });
    let listed: string[] = [];
    await waitFor(
      "the signer to list the orchestrator",
      async () => {
        const r = await driver(["discover", "--signer-url", signerUrl()]);
        listed = (r.json.orchestrators as string[] | undefined) ?? [];
        return r.code === 0;
      },
      60_000,
      context,
    );
    expect(listed).toEqual([`https://127.0.0.1:${orchPort}`]);
    const byCap = await driver(["discover", "--signer-url", signerUrl(), "--caps", `text-to-image/${MODEL}`]);
    expect(byCap.json.orchestrators).toEqual([`https://127.0.0.1:${orchPort}`]);
  });

  it("get_orch_info(addr, signer_url=...) returns ticket parameters for the signer's funded address", async () => {
    const r = await driver([
      "orch-info",
      "--url",
      `https://127.0.0.1:${orchPort}`,
      "--signer-url",
      signerUrl(),
    ]);
    expect(r.code, `${JSON.stringify(r.json)}\n${context()}`).toBe(0);
    const info = r.json.orchestratorInfo as {
      address: string;
      ticket_params: { recipient: string; face_value: string; win_prob: string; expiration_block: string };
      price_info: { pricePerUnit: string };
    };
    const orchAddress = bed.account("orchestrator-0").address;
    expect(getAddress(`0x${Buffer.from(info.address, "base64").toString("hex")}`)).toBe(
      getAddress(orchAddress),
    );
    expect(getAddress(`0x${Buffer.from(info.ticket_params.recipient, "base64").toString("hex")}`)).toBe(
      getAddress(orchAddress),
    );
    expect(bytesToBigInt(Buffer.from(info.ticket_params.face_value, "base64"))).toBeGreaterThan(0n);
    expect(bytesToBigInt(Buffer.from(info.ticket_params.win_prob, "base64"))).toBeGreaterThan(0n);
    // Without the signer the same orchestrator refuses the SDK: the request is not signed.
    const bare = await driver(["orch-info", "--url", `https://127.0.0.1:${orchPort}`]);
    expect(bare.code).toBe(1);
    expect(String(bare.json.error)).toMatch(/orchestrator req sig check failed/);
  });

  it("PaymentSession.get_payment pays with tickets signed by the signer's key; the webhook saw the caller's headers", async () => {
    hookCalls.length = 0;
    hookAnswer = { status: 200, expiry: 0, auth_id: "tenant-a" };
    const r = await driver([
      "payment",
      "--url",
      `https://127.0.0.1:${orchPort}`,
      "--signer-url",
      signerUrl(),
      "--signer-headers",
      JSON.stringify({ Authorization: "Bearer tenant-a-token" }),
      "--type",
      "live",
      "--manifest-id",
      "stream-1",
      "--count",
      "2",
    ]);
    expect(r.code, `${JSON.stringify(r.json)}\n${context()}`).toBe(0);
    const payments = r.json.payments as { payment: string }[];
    expect(payments).toHaveLength(2);
    const signerAddress = getAddress(bed.account("gateway-0").address);
    let lastNonce = 0;
    for (const p of payments) {
      const payment = decodeMessage("Payment", Buffer.from(p.payment, "base64"));
      expect(getAddress(`0x${payment.sender.toString("hex")}`)).toBe(signerAddress);
      expect(payment.ticketSenderParams.length).toBeGreaterThan(0);
      for (const t of payment.ticketSenderParams) {
        expect(t.senderNonce).toBe(lastNonce + 1);
        lastNonce = t.senderNonce;
        const hash = ticketHash(payment.ticketParams!, payment.sender, t.senderNonce, {
          creationRound: BigInt(payment.expirationParams!.creationRound),
          creationRoundBlockHash: payment.expirationParams!.creationRoundBlockHash,
        });
        expect(recoverAddress(hashMessage(hash), `0x${t.sig.toString("hex")}`)).toBe(signerAddress);
      }
    }
    expect(hookCalls).toHaveLength(2);
    expect(hookCalls[0]!.headers.Authorization).toEqual(["Bearer tenant-a-token"]);
    expect(hookCalls[1]!.state).toMatchObject({ AuthID: "tenant-a", SequenceNumber: 1, Type: "live" });
  });

  it("a webhook refusal reaches the SDK with its reason", async () => {
    hookAnswer = { status: 403, reason: "tenant acme is over its daily budget" };
    const r = await driver([
      "payment",
      "--url",
      `https://127.0.0.1:${orchPort}`,
      "--signer-url",
      signerUrl(),
      "--type",
      "live",
    ]);
    expect(r.code).toBe(1);
    expect(String(r.json.error)).toMatch(/HTTP 403 .*tenant acme is over its daily budget/);
  });

  it("a keyless gateway (-remoteSignerUrl, off chain) takes the signer's address, finds the orchestrator through the signer and is quoted; its transcoding segments carry no payment, as upstream's, so the on-chain orchestrator refuses them (ErrSegSig)", async () => {
    const lines: string[] = [];
    const gateway = await startNodeSimulator({
      argv: [
        "-gateway",
        `-remoteSignerUrl=${signerUrl()}`,
        "-remoteSignerHeaders=Authorization:Bearer gw-token",
        "-httpAddr=127.0.0.1:0",
        "-cliAddr=127.0.0.1:0",
        "-rtmpAddr=127.0.0.1:0",
      ],
      log: (l) => lines.push(l),
    });
    try {
      const text = lines.join("\n");
      expect(text).toContain(`Retrieving OrchestratorInfo fields from remote signer: ${signerUrl()}`);
      expect(text).toContain(
        `Using Ethereum address from remote signer: ${getAddress(bed.account("gateway-0").address)}`,
      );
      expect(text).toContain(
        `Using remote signer orchestrator discovery endpoint ${signerUrl()}/discover-orchestrators`,
      );
      expect(text).not.toContain("No orchestrator specified");
      const pushed = await pushStream({
        gateway: gateway.urls.http!,
        name: "keyless",
        segments: 2,
        realtime: false,
      });
      // The signer pays only live AI (server/live_payment.go): a segment's payment is empty and
      // its creds unsigned, so each attempt is refused and the push fails.
      expect(pushed.segments.map((x) => x.status)).toEqual([500, 500]);
      const after = lines.join("\n");
      // Quoted (the signer's signature passed GetOrchestrator), then the segment refused.
      expect(after).toMatch(/Done fetching orch info orchs=1\/1 responses=1\/1/);
      expect(after).toMatch(
        /Error submitting segment statusCode=403 orch=https:\/\/127\.0\.0\.1:\d+ err="ErrSegSig\\n"/,
      );
    } finally {
      await gateway.stop();
    }
    // Without its signer the gateway does not start (exit 1), as the node.
    const refused = await startNodeSimulator({
      argv: [
        "-gateway",
        `-remoteSignerUrl=http://127.0.0.1:${await freePort()}`,
        "-httpAddr=127.0.0.1:0",
        "-cliAddr=127.0.0.1:0",
        "-rtmpAddr=127.0.0.1:0",
      ],
      log: () => {},
    }).then(
      (g) => g.stop().then(() => undefined),
      (err: NodeStartError) => err,
    );
    expect(refused?.exitCode).toBe(1);
    expect(refused?.message).toMatch(/^Unable to query remote signer: failed to call remote signer: /);
  });

  it("the keystore files the signer read stay the only holders of the key (nothing logged)", () => {
    const password = readFileSync(bed.account("gateway-0").passwordFile, "utf8").trim();
    expect(signerLog.join("\n")).not.toContain(password);
  });
});
