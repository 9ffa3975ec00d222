// Live video-to-video on the devnet, paid through a remote signer (issue #30): the simulated
// remote signer holds gateway-0's devnet key (funded in the TicketBroker) and its auth webhook is a
// real server on loopback; a devnet orchestrator simulator (orchestrator-0's key, on chain, with
// -useLiveRunners) takes a pass-through live runner simulator; the official Python SDK's
// start_lv2v with signer_url is the client. The orchestrator receives the signer's tickets as
// go-livepeer 0.9 does (signatures, recipientRand, nonces, expiry, the sender's TicketBroker
// account), credits their EV to the session and charges it 1280x720x30 pixels a second; when the
// webhook refuses the tenant, payments stop and the orchestrator ends the session with the node's
// "insufficient balance" once the prepaid minute is used.
import { execFileSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getAddress } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { ensureMediaTools } from "../../src/dev/media-tools.ts";
import { ensureGatewaySdk, GATEWAY_DRIVER, type GatewaySdk } from "../../src/dev/python/environment.ts";
import { freePort } from "../../src/devnet/processes.ts";
import {
  type LiveRunnerSimulator,
  startLiveRunnerSimulator,
} from "../../src/simulator/live-runner/live-runner.ts";
import { type NodeSimulator, startNodeSimulator } from "../../src/simulator/simulator.ts";
import { type DevnetBed, startDevnetBed } from "./support/devnet-bed.ts";

const SECRET = "live-signer-s3cret";
/** Wei per pixel: a minute of 1280x720x30 costs about 21 tickets of the default 8 gwei EV. */
const PRICE = 100;

let bed: DevnetBed;
let sdk: GatewaySdk;
let clip: Buffer;
let signer: NodeSimulator | undefined;
let orchestrator: NodeSimulator | undefined;
let runner: LiveRunnerSimulator | undefined;
let webhook: Server;
let orchUrl: string;
const signerLog: string[] = [];
const orchLog: string[] = [];
const runnerLog: string[] = [];
const hookCalls: { headers: Record<string, string[]>; state: Record<string, unknown> }[] = [];
/** The webhook's answer to its n-th call (from 0) since the test set it. */
let hookAnswer: (n: number) => Record<string, unknown> = () => ({ status: 200 });

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
  const [b, s] = await Promise.allSettled([
    startDevnetBed("live-signer-devnet"),
    ensureGatewaySdk(() => {}),
    ensureMediaTools(),
  ]);
  if (b.status === "fulfilled") bed = b.value;
  if (s.status === "rejected") throw s.reason;
  if (b.status === "rejected") throw b.reason;
  sdk = s.value;
  // Two seconds of a 320x240 test pattern at 30 fps, H.264 in MPEG-TS.
  clip = execFileSync("ffmpeg", [
    ...["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30"],
    ...["-t", "2", "-c:v", "libx264", "-g", "15", "-pix_fmt", "yuv420p", "-f", "mpegts", "pipe:1"],
  ]);
  webhook = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const n = hookCalls.push(JSON.parse(Buffer.concat(chunks).toString())) - 1;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(hookAnswer(n)));
  });
  await new Promise<void>((r) => webhook.listen(0, "127.0.0.1", r));
  const port = await freePort();
  orchUrl = `https://127.0.0.1:${port}`;
  orchestrator = await startNodeSimulator({
    argv: [
      "-orchestrator",
      "-transcoder",
      ...chainFlags("orchestrator-0"),
      `-serviceAddr=127.0.0.1:${port}`,
      `-httpAddr=127.0.0.1:${port}`,
      "-cliAddr=127.0.0.1:0",
      `-pricePerUnit=${PRICE}`,
      "-useLiveRunners",
      `-orchSecret=${SECRET}`,
    ],
    log: (l) => orchLog.push(l),
  });
  signer = await startNodeSimulator({
    argv: [
      "-remoteSigner",
      ...chainFlags("gateway-0"),
      `-httpAddr=127.0.0.1:${await freePort()}`,
      "-cliAddr=127.0.0.1:0",
      `-orchAddr=${orchUrl}`,
      `-remoteSignerWebhookUrl=http://127.0.0.1:${(webhook.address() as AddressInfo).port}/auth`,
    ],
    log: (l) => signerLog.push(l),
  });
  runner = startLiveRunnerSimulator({
    pipeline: "live-video-to-video",
    modelId: "noop",
    port: 0,
    orchUrl,
    orchSecret: SECRET,
    price: "0.5",
    log: (l) => runnerLog.push(l),
  });
  await runner.registered;
}, 600_000);

afterAll(async () => {
  await runner?.stop();
  await Promise.all([signer?.stop(), orchestrator?.stop()]);
  await new Promise<void>((r) => (webhook ? webhook.close(() => r()) : r()));
  await bed?.stop();
});

const context = () =>
  `signer:\n${signerLog.slice(-20).join("\n")}\norchestrator:\n${orchLog.slice(-40).join("\n")}\nrunner:\n${runnerLog.slice(-10).join("\n")}`;

async function lv2v(args: string[]) {
  const r = await sdk.run(
    GATEWAY_DRIVER,
    ["lv2v", "--orch-url", orchUrl, "--model-id", "noop", "--signer-url", signer!.urls.http!, ...args],
    { timeoutMs: 180_000, input: clip.toString("base64") },
  );
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1) || "{}") as Record<string, unknown>;
  return { code: r.code, out, stderr: r.stderr };
}

/** The orchestrator's "Payment tickets processed" lines for a session: tickets accepted. */
const ticketsAccepted = (mid: string) =>
  orchLog
    .filter((l) => l.includes(`Payment tickets processed sessionID=${mid} `))
    .map((l) => Number(/totalTickets=(\d+)/.exec(l)![1]));

/** The signer's "Signed numTickets=" lines since `from`. */
const ticketsSigned = (from: number) =>
  signerLog.slice(from).flatMap((l) => {
    const m = /Signed numTickets=(\d+)/.exec(l);
    return m ? [Number(m[1])] : [];
  });

/** Streams the runner still runs (an on-chain orchestrator answers only signed GetOrchestrator calls). */
const runnerStreams = async () => runner!.snapshot().streams.length;

describe("live video-to-video on the devnet, paid with tickets the remote signer makes", () => {
  it("the session starts, the frames come back, and the orchestrator accepts the signer's tickets for it", async () => {
    hookCalls.length = 0;
    hookAnswer = () => ({ status: 200, auth_id: "tenant-a" });
    const signerFrom = signerLog.length;
    const r = await lv2v(["--signer-headers", JSON.stringify({ Authorization: "Bearer tenant-a-token" })]);
    expect(r.code, `${JSON.stringify(r.out)}\n${r.stderr.slice(-2000)}\n${context()}`).toBe(0);
    const mid = (r.out.job as Record<string, string>).manifest_id!;
    expect(r.out.published).toBe(60);
    expect(r.out.received as number).toBeGreaterThan(0);
    expect(r.out.sizes).toEqual(["320x240"]);

    const orch = orchLog.join("\n");
    // Priced: no "will not charge" warning; the first payment bought the session's first minute.
    expect(orch).not.toMatch(new RegExp(`manifest_id=${mid} .*will not charge`));
    expect(orch).toContain("Processed request cap=Live video to video modelID=noop");
    const accepted = ticketsAccepted(mid);
    const signed = ticketsSigned(signerFrom);
    expect(accepted.length, context()).toBeGreaterThanOrEqual(1);
    // Every ticket the signer made for this session was accepted, none refused.
    const total = accepted.reduce((a, b) => a + b, 0);
    expect(total).toBe(signed.reduce((a, b) => a + b, 0));
    expect(total).toBeGreaterThanOrEqual(20);
    expect(orch).not.toContain("Error receiving ticket");
    // The follow-up payments (POST /payment) name the signer's address as their sender.
    const signerAddress = getAddress(bed.account("gateway-0").address);
    if (accepted.length > 1) {
      expect(orch).toMatch(
        new RegExp(`manifestID=${mid} .*sender=${signerAddress} Payment processed, current balance=\\d+`),
      );
    }
    // The tenant's spend as the webhook saw it: tickets issued (SenderNonce) grows call by call.
    expect(hookCalls.length).toBeGreaterThanOrEqual(1);
    expect(hookCalls[0]!.headers.Authorization).toEqual(["Bearer tenant-a-token"]);
    const nonces = hookCalls.map((c) => c.state.SenderNonce as number);
    expect(nonces[0]).toBe(signed[0]);
    for (let i = 1; i < nonces.length; i++) expect(nonces[i]!).toBeGreaterThan(nonces[i - 1]!);
    expect(hookCalls.map((c) => c.state.Type)).toEqual(hookCalls.map(() => "lv2v"));
    console.info(
      `paid session ${mid}: ${total} tickets accepted in ${accepted.length} payments (${accepted.join("+")}), ${r.out.received} of ${r.out.published} frames back, webhook nonces ${nonces.join(",")}`,
    );
    // The client closed its input: the session ends, the runner's slot is free again.
    await waitFor("the runner's slot to be free", async () => (await runnerStreams()) === 0, 30_000, context);
  }, 240_000);

  it("a webhook that refuses the tenant stops the payments, and the orchestrator ends the session with the node's error", async () => {
    hookCalls.length = 0;
    hookAnswer = (n) =>
      n === 0 ? { status: 200 } : { status: 403, reason: "tenant acme is over its daily budget" };
    const r = await lv2v(["--repeat-seconds", "110", "--wait-seconds", "2"]);
    expect(r.code, `${JSON.stringify(r.out)}\n${r.stderr.slice(-2000)}\n${context()}`).toBe(0);
    const mid = (r.out.job as Record<string, string>).manifest_id!;
    // The prepaid minute runs out, then the orchestrator stops the session: its output ends.
    expect(r.out.output_ended_after, context()).not.toBeNull();
    expect(r.out.output_ended_after as number).toBeGreaterThan(55);
    expect(r.out.output_ended_after as number).toBeLessThan(100);
    expect(hookCalls.length).toBeGreaterThanOrEqual(2);
    const orch = orchLog.join("\n");
    expect(orch).toMatch(
      new RegExp(
        `manifest_id=${mid} .*Error accounting payment, stopping stream processing%!\\(EXTRA \\*errors\\.errorString=insufficient balance, mid=${mid}, fee=\\d+, balance=\\d+\\)`,
      ),
    );
    expect(orch).toMatch(new RegExp(`manifest_id=${mid} .*Accounted payment for sessionID=${mid}, fee=\\d+`));
    expect(signerLog.join("\n")).toContain("tenant acme is over its daily budget");
    console.info(
      `refused tenant, session ${mid}: output ended after ${r.out.output_ended_after} s; ${orchLog.filter((l) => l.includes(`Accounted payment for sessionID=${mid},`)).length} charges before "insufficient balance"; ${hookCalls.length} webhook calls`,
    );
    await waitFor("the runner's slot to be free", async () => (await runnerStreams()) === 0, 30_000, context);
  }, 300_000);
});
