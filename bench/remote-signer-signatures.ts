// The simulated remote signer's signatures per second (a figure, not a goal): ECDSA personal-signs
// with a keystore's key (1) bare, in process; (2) POST /sign-orchestrator-info over keep-alive
// HTTP on a started -remoteSigner node simulator (one signature per answer), C calls in flight for
// S seconds; (3) generate-live-payment (type fixed) in process with fixed chain facts: tickets,
// segment credentials and the state each signed, so 3 signatures per payment of one ticket.
//
//   node bench/remote-signer-signatures.ts [--seconds 3] [--concurrency 8]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { encryptKeystoreJsonSync, Wallet } from "ethers";
import { LIGHT_SCRYPT } from "../src/devnet/keystore.ts";
import { rational } from "../src/node/pricing/rational.ts";
import { bigIntToBytes, encodeMessage } from "../src/node/wire/messages.ts";
import { http } from "../src/process/builtin-http.ts";
import { generateLivePayment } from "../src/simulator/signer/live-payment.ts";
import { nodeSign, orchestratorInfoSignature } from "../src/simulator/signer/signatures.ts";
import { MAX_WIN_PROB } from "../src/simulator/signer/tickets.ts";
import { startNodeSimulator } from "../src/simulator/simulator.ts";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "3" }, concurrency: { type: "string", default: "8" } },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const wallet = Wallet.createRandom() as unknown as Wallet;

function rate(label: string, count: number, ms: number, unit = "signatures/s"): void {
  process.stdout.write(`${label.padEnd(46)} ${((count * 1000) / ms).toFixed(0).padStart(8)} ${unit}\n`);
}

// (1) bare signing
{
  const msg = Buffer.alloc(32, 1);
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const t0 = performance.now();
  while (performance.now() < end) {
    nodeSign(wallet, msg);
    n++;
  }
  rate("bare nodeSign (in process, 1 core)", n, performance.now() - t0);
}

// (2) over HTTP on a started signer
const dir = mkdtempSync(path.join(os.tmpdir(), "signer-bench-"));
try {
  writeFileSync(
    path.join(dir, "key.json"),
    encryptKeystoreJsonSync({ address: wallet.address, privateKey: wallet.privateKey }, "pw", {
      scrypt: LIGHT_SCRYPT,
    }),
  );
  writeFileSync(path.join(dir, "password"), "pw");
  const signer = await startNodeSimulator({
    argv: [
      "-remoteSigner",
      "-network=devnet",
      "-ethUrl=http://127.0.0.1:1",
      "-ethController=0x77A0865438f2EfD65667362D4a8937537CA7a5EF",
      `-ethKeystorePath=${path.join(dir, "key.json")}`,
      `-ethPassword=${path.join(dir, "password")}`,
      "-httpAddr=127.0.0.1:0",
      "-cliAddr=127.0.0.1:0",
    ],
    log: () => {},
  });
  const url = new URL("/sign-orchestrator-info", signer.urls.http);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(url, { method: "POST", agent }, (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      });
      req.on("error", reject);
      req.end();
    });
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await post();
        n++;
      }
    }),
  );
  rate(`POST /sign-orchestrator-info (C=${concurrency})`, n, performance.now() - t0);
  agent.destroy();
  await signer.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// (3) live payments in process
{
  const orch = Buffer.alloc(20, 0x11);
  const face = 10n ** 12n;
  const info = encodeMessage("OrchestratorInfo", {
    transcoder: "https://127.0.0.1:8935",
    address: orch,
    priceInfo: { pricePerUnit: 100, pixelsPerUnit: 1 },
    authToken: { token: Buffer.from("t"), sessionId: "s", expiration: Math.floor(Date.now() / 1000) + 1800 },
    ticketParams: {
      recipient: orch,
      faceValue: bigIntToBytes(face),
      winProb: bigIntToBytes((MAX_WIN_PROB / face) * 10n ** 9n),
      recipientRandHash: Buffer.alloc(32, 7),
      seed: bigIntToBytes(1n),
      expirationBlock: bigIntToBytes(10_000n),
    },
  }).toString("base64");
  const body = Buffer.from(JSON.stringify({ orchestrator: info, type: "fixed" }));
  const facts = {
    deposit: 10n ** 19n,
    reserve: 10n ** 19n,
    withdrawRound: 0n,
    lastInitializedRound: 1n,
    lastSeenBlock: 1n,
  };
  const deps = {
    wallet,
    chain: async () => facts,
    limits: {
      maxTicketEV: rational(3n * 10n ** 12n),
      maxTotalEV: rational(2n * 10n ** 13n),
      depositMultiplier: 1n,
    },
    log: () => {},
  };
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const t0 = performance.now();
  while (performance.now() < end) {
    const a = await generateLivePayment({ body, headers: {}, ip: "127.0.0.1" }, deps);
    if (a.status !== 200) throw new Error(JSON.stringify(a.json));
    n++;
  }
  const ms = performance.now() - t0;
  rate("generate-live-payment (fixed, 1 ticket)", n, ms, "payments/s");
  rate("  = signatures (ticket + segCreds + state)", n * 3, ms);
}
