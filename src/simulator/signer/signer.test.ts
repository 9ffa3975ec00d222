// The simulated remote signer's signatures, tickets, price ceilings, status codes and auth webhook
// call, as server/remote_signer.go makes them: signatures recovered with ethers, the webhook a
// real HTTP server on loopback.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getBytes, hashMessage, recoverAddress, verifyMessage, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rational, ratText } from "../../node/pricing/rational.ts";
import { bigIntToBytes, decodeMessage, encodeMessage, type MessageInput } from "../../node/wire/messages.ts";
import { orchestratorInfoMessage } from "../../node/wire/signed-identity.ts";
import { type AuthAnswer, goRequestHeaders, parseHeaderMap } from "./auth-webhook.ts";
import {
  type Answer,
  generateLivePayment,
  type LivePaymentDeps,
  parseMaxPrice,
  priceCeilingProblem,
} from "./live-payment.ts";
import { decodePaymentState } from "./payment-state.ts";
import { configuredMaxPrice, signerStartRefusal } from "./remote-signer.ts";
import {
  nodeSign,
  orchestratorInfoSignature,
  verifyNodeSignature,
  verifyOrchestratorRequest,
} from "./signatures.ts";
import { MAX_WIN_PROB, ticketHash } from "./tickets.ts";

const wallet = Wallet.createRandom() as unknown as Wallet;
const ORCH = Buffer.from("11".repeat(20), "hex");
const EV = 1_000_000_000n;
const FACE_VALUE = 1_000_000_000_000n;
const WIN_PROB = (MAX_WIN_PROB / FACE_VALUE) * EV;

function orchInfo(overrides: Partial<MessageInput<"OrchestratorInfo">> = {}): Buffer {
  return encodeMessage("OrchestratorInfo", {
    transcoder: "https://127.0.0.1:8935",
    address: ORCH,
    priceInfo: { pricePerUnit: 100, pixelsPerUnit: 1 },
    authToken: {
      token: Buffer.from("t"),
      sessionId: "abcd1234",
      expiration: Math.floor(Date.now() / 1000) + 1800,
    },
    ticketParams: {
      recipient: ORCH,
      faceValue: bigIntToBytes(FACE_VALUE),
      winProb: bigIntToBytes(WIN_PROB),
      recipientRandHash: Buffer.alloc(32, 7),
      seed: bigIntToBytes(42n),
      expirationBlock: bigIntToBytes(1040n),
      expirationParams: { creationRound: 5, creationRoundBlockHash: Buffer.alloc(32, 9) },
    },
    ...overrides,
  });
}

const chainFacts = {
  deposit: 10n ** 19n,
  reserve: 10n ** 19n,
  withdrawRound: 0n,
  lastInitializedRound: 5n,
  lastSeenBlock: 1000n,
};

function deps(extra: Partial<LivePaymentDeps> = {}): LivePaymentDeps & { lines: string[] } {
  const lines: string[] = [];
  return {
    wallet,
    chain: async () => chainFacts,
    limits: {
      maxTicketEV: rational(3_000_000_000_000n),
      maxTotalEV: rational(20_000_000_000_000n),
      depositMultiplier: 1n,
    },
    log: (_l, _w, m) => lines.push(m),
    lines,
    ...extra,
  };
}

async function pay(
  body: Record<string, unknown>,
  d: LivePaymentDeps,
  headers: Record<string, string[]> = {},
): Promise<Answer> {
  return generateLivePayment({ body: Buffer.from(JSON.stringify(body)), headers, ip: "127.0.0.1" }, d);
}

const message = (a: Answer) => (a.json as { error?: { message: string } }).error?.message;

describe("signatures", () => {
  it("the orchestrator-info signature is the account's personal-sign of keccak256(address hex), as ethers recovers it", () => {
    const sig = orchestratorInfoSignature(wallet);
    expect(sig).toHaveLength(65);
    expect(verifyMessage(orchestratorInfoMessage(wallet.address), `0x${sig.toString("hex")}`)).toBe(
      wallet.address,
    );
    expect(verifyOrchestratorRequest(Buffer.from(getBytes(wallet.address)), sig)).toBe(true);
    const other = Wallet.createRandom();
    expect(verifyOrchestratorRequest(Buffer.from(getBytes(other.address)), sig)).toBe(false);
    expect(verifyOrchestratorRequest(Buffer.alloc(0), Buffer.alloc(0))).toBe(false);
  });

  it("a signature with v outside 27/28 or a high s is refused, as crypto/verify.go VerifySig", () => {
    const msg = Buffer.from("state");
    const sig = nodeSign(wallet, msg);
    expect(verifyNodeSignature(wallet.address, msg, sig)).toBe(true);
    const v01 = Buffer.from(sig);
    v01[64] = v01[64]! - 27;
    expect(verifyNodeSignature(wallet.address, msg, v01)).toBe(false);
    const highS = Buffer.from(sig);
    Buffer.alloc(32, 0xff).copy(highS, 32);
    expect(verifyNodeSignature(wallet.address, msg, highS)).toBe(false);
  });
});

describe("generate-live-payment", () => {
  it("pays a new live session with signed tickets on the orchestrator's parameters and a signed state", async () => {
    const d = deps();
    const a = await pay({ orchestrator: orchInfo().toString("base64"), type: "live", ManifestID: "m1" }, d);
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    const body = a.json as { payment: string; segCreds: string; state: { State: string; Sig: string } };
    const payment = decodeMessage("Payment", Buffer.from(body.payment, "base64"));
    expect(`0x${payment.sender.toString("hex")}`).toBe(wallet.address.toLowerCase());
    expect(payment.ticketParams?.recipient).toEqual(ORCH);
    expect(payment.ticketSenderParams).toHaveLength(1); // 10 s x 100 wei < one ticket's EV
    const t = payment.ticketSenderParams[0]!;
    expect(t.senderNonce).toBe(1);
    const hash = ticketHash(payment.ticketParams!, payment.sender, 1, {
      creationRound: 5n,
      creationRoundBlockHash: Buffer.alloc(32, 9),
    });
    expect(recoverAddress(hashMessage(hash), `0x${t.sig.toString("hex")}`)).toBe(wallet.address);
    expect(payment.expectedPrice).toMatchObject({ pricePerUnit: "100", pixelsPerUnit: "1" });

    const stateBytes = Buffer.from(body.state.State, "base64");
    expect(verifyNodeSignature(wallet.address, stateBytes, Buffer.from(body.state.Sig, "base64"))).toBe(true);
    expect(Object.keys(JSON.parse(stateBytes.toString()) as object)).toEqual([
      "StateID",
      "PMSessionID",
      "LastUpdate",
      "OrchestratorAddress",
      "App",
      "AuthExpiry",
      "SenderNonce",
      "Balance",
      "InitialPricePerUnit",
      "InitialPixelsPerUnit",
      "Type",
      "SequenceNumber",
      "AuthID",
    ]);
    const state = decodePaymentState(stateBytes);
    expect(state).toMatchObject({
      SenderNonce: 1,
      Type: "live",
      SequenceNumber: 0,
      InitialPricePerUnit: 100,
    });
    // One ticket's EV (faceValue x winProb / 2^256-1, a fraction) less 10 s at 100 wei, as Go's RatString.
    const ev = rational(FACE_VALUE * WIN_PROB, MAX_WIN_PROB);
    expect(state.Balance).toBe(ratText(rational(ev.num - 1000n * ev.den, ev.den)));
    const seg = decodeMessage("SegData", Buffer.from(body.segCreds, "base64"));
    expect(seg.manifestId.toString()).toBe("m1");
    expect(seg.authToken?.sessionId).toBe("abcd1234");
    expect(d.lines.some((l) => /Signed numTickets=1 nonce=1 fee=1000 /.test(l))).toBe(true);

    // The next request with that state: the balance is below one ticket's EV, so one more ticket,
    // the nonce and sequence number counting on.
    const next = await pay(
      { orchestrator: orchInfo().toString("base64"), type: "live", ManifestID: "m1", state: body.state },
      d,
    );
    expect(next.status, JSON.stringify(next.json)).toBe(200);
    const nextState = (next.json as { state: { State: string } }).state;
    expect(decodePaymentState(Buffer.from(nextState.State, "base64"))).toMatchObject({
      SenderNonce: 2,
      SequenceNumber: 1,
    });
    // Ticket parameters worth half as much per ticket: the balance covers the fee and a ticket's
    // EV, so no tickets this time (482).
    const cheaper = orchInfo({
      ticketParams: {
        recipient: ORCH,
        faceValue: bigIntToBytes(FACE_VALUE),
        winProb: bigIntToBytes(WIN_PROB / 2n),
        recipientRandHash: Buffer.alloc(32, 7),
        seed: bigIntToBytes(42n),
        expirationBlock: bigIntToBytes(1040n),
      },
    });
    const skip = await pay(
      { orchestrator: cheaper.toString("base64"), type: "live", ManifestID: "m1", state: nextState },
      d,
    );
    expect([skip.status, message(skip)]).toEqual([482, "no tickets"]);
    // A state someone changed is refused.
    const forged = {
      State: Buffer.from(stateBytes.toString().replace('"SenderNonce":1', '"SenderNonce":0')).toString(
        "base64",
      ),
      Sig: body.state.Sig,
    };
    const bad = await pay(
      { orchestrator: orchInfo().toString("base64"), type: "live", ManifestID: "m1", state: forged },
      d,
    );
    expect([bad.status, message(bad)]).toEqual([400, "invalid sig"]);
  });

  it.each([
    [
      "the request's maxPrice below the price",
      { maxPrice: { price: "50", unit: "seconds", currency: "wei" } },
      {},
      481,
      "orchestrator price 100.000 exceeds request maxPrice ceiling 50.000",
    ],
    [
      "the configured maximum is the lowest ceiling",
      { maxPrice: { price: "90", unit: "seconds", currency: "wei" } },
      { maxPrice: rational(80n) },
      481,
      "orchestrator price 100.000 exceeds configured maximum price ceiling 80.000",
    ],
    [
      "a maxPrice in the wrong unit",
      { maxPrice: { price: "500", unit: "fixed", currency: "wei" } },
      {},
      400,
      "maxPrice.unit must be seconds for payment type live",
    ],
    [
      "a maxPrice not in wei",
      { maxPrice: { price: "500", unit: "seconds", currency: "USD" } },
      {},
      400,
      "maxPrice.currency must be wei",
    ],
    ["an unknown job type", { type: "vod" }, {}, 400, "invalid job type"],
    ["no type and no pixels", { type: "" }, {}, 400, "missing billable unit or job type"],
  ])("%s: %i", async (_name, body, limits, status, text) => {
    const d = deps();
    const a = await pay(
      { orchestrator: orchInfo().toString("base64"), type: "live", ...body },
      { ...d, limits: { ...d.limits, ...limits } },
    );
    expect([a.status, message(a)]).toEqual([status, text]);
  });

  it("asks for a refreshed session (480, Livepeer-Orchestrator-URL) when the auth token nears its end or the ticket parameters expired", async () => {
    const old = orchInfo({
      authToken: { token: Buffer.from("t"), sessionId: "s", expiration: Math.floor(Date.now() / 1000) + 60 },
    });
    const a = await pay({ orchestrator: old.toString("base64"), type: "live" }, deps());
    expect([a.status, message(a), a.headers]).toEqual([
      480,
      "refresh session for remote signer",
      { "Livepeer-Orchestrator-URL": "https://127.0.0.1:8935" },
    ]);
    const expired = await pay(
      { orchestrator: orchInfo().toString("base64"), type: "live" },
      deps({ chain: async () => ({ ...chainFacts, lastSeenBlock: 1039n }) }),
    );
    expect(expired.status).toBe(480);
  });

  it("refuses what it cannot sign for: no orchestrator, no price, no ticket params, an unfunded signer (500 as Internal Server Error)", async () => {
    const d = deps();
    expect(message(await pay({ type: "live" }, d))).toBe("missing orchestrator");
    expect(
      message(
        await pay(
          {
            orchestrator: orchInfo({ priceInfo: { pricePerUnit: 0, pixelsPerUnit: 1 } }).toString("base64"),
            type: "live",
          },
          d,
        ),
      ),
    ).toBe("missing or zero priceInfo");
    const unfunded = await pay(
      { orchestrator: orchInfo().toString("base64"), type: "live" },
      deps({ chain: async () => ({ ...chainFacts, reserve: 0n }) }),
    );
    expect([unfunded.status, message(unfunded)]).toEqual([
      400,
      "remote signer could not check whether to refresh session: no sender reserve",
    ]);
  });

  it("parses ceilings as parseRemotePaymentMaxPrice and picks the lowest as checkRemotePaymentPrice", () => {
    expect(parseMaxPrice({ price: "1.5", unit: "720p-pixel-seconds", currency: "WEI" }, "lv2v")).toEqual(
      rational(3n, 2n),
    );
    expect(parseMaxPrice({ price: "-1", unit: "fixed", currency: "wei" }, "fixed")).toBe(
      "maxPrice.price must be a positive decimal",
    );
    expect(parseMaxPrice({ price: "1", unit: "fixed", currency: "wei" }, "")).toBe(
      "maxPrice requires payment type live, lv2v, or fixed",
    );
    expect(
      priceCeilingProblem(rational(5n), [
        { source: "a", price: rational(9n) },
        { source: "b", price: undefined },
      ]),
    ).toBeUndefined();
    expect(configuredMaxPrice({ maxPricePerUnit: "1200", pixelsPerUnit: "7" } as never)).toEqual(
      rational(1200n, 7n),
    );
  });
});

describe("the auth webhook", () => {
  let server: Server;
  let url: string;
  const calls: {
    headers: IncomingMessage["headers"];
    body: { headers: Record<string, string[]>; state: Record<string, unknown> };
  }[] = [];
  let answer: { code: number; body: AuthAnswer | string } = { code: 200, body: { status: 200 } };
  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      calls.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
      res.writeHead(answer.code, { "content-type": "application/json" });
      res.end(typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth?token=t`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const webhookDeps = () =>
    deps({ webhook: { url: new URL(url), headers: parseHeaderMap("X-Hook-Key:k1,Other:v") } });
  const callerHeaders = goRequestHeaders([
    "Authorization",
    "Bearer tenant-jwt",
    "Host",
    "signer:8935",
    "signer-auth-id",
    "caller-1",
  ]);

  it("is called after the tickets are made with the caller's headers and the new state; its refusal and reason reach the caller", async () => {
    calls.length = 0;
    answer = { code: 200, body: { status: 403, reason: "tenant acme is over its daily budget" } };
    const a = await pay(
      { orchestrator: orchInfo().toString("base64"), type: "fixed", app: "app1" },
      webhookDeps(),
      callerHeaders,
    );
    expect([a.status, message(a)]).toEqual([403, "tenant acme is over its daily budget"]);
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.headers["x-hook-key"]).toBe("k1");
    expect(call.headers["content-type"]).toBe("application/json");
    expect(call.body.headers).toEqual({
      Authorization: ["Bearer tenant-jwt"],
      "Signer-Auth-Id": ["caller-1"],
    });
    expect(call.body.state).toMatchObject({ App: "app1", Type: "fixed", SenderNonce: 1, AuthExpiry: 0 });
  });

  it("grants until its expiry (the next call skips it), keeps auth_id, and its maxPrice is one more ceiling", async () => {
    calls.length = 0;
    answer = {
      code: 200,
      body: { status: 200, expiry: Math.floor(Date.now() / 1000) + 60, auth_id: "tenant-acme" },
    };
    const d = webhookDeps();
    const plainHeaders = goRequestHeaders(["Authorization", "Bearer tenant-jwt"]);
    const first = await pay({ orchestrator: orchInfo().toString("base64"), type: "fixed" }, d, plainHeaders);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const state = (first.json as { state: { State: string } }).state;
    expect(decodePaymentState(Buffer.from(state.State, "base64"))).toMatchObject({ AuthID: "tenant-acme" });
    const second = await pay(
      { orchestrator: orchInfo().toString("base64"), type: "fixed", ManifestID: "x", state },
      d,
      plainHeaders,
    );
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    expect(calls).toHaveLength(1);
    // A caller whose Signer-Auth-Id differs from the session's is refused (auth ID changed).
    const changed = await pay(
      { orchestrator: orchInfo().toString("base64"), type: "fixed", ManifestID: "x", state },
      d,
      callerHeaders,
    );
    expect([changed.status, message(changed)]).toEqual([500, "Internal Server Error"]);
    expect(calls).toHaveLength(1);

    answer = { code: 200, body: { status: 200, maxPrice: { price: "60", unit: "fixed", currency: "wei" } } };
    const capped = await pay(
      { orchestrator: orchInfo().toString("base64"), type: "fixed" },
      d,
      callerHeaders,
    );
    expect([capped.status, message(capped)]).toEqual([
      481,
      "orchestrator price 100.000 exceeds auth webhook maxPrice ceiling 60.000",
    ]);
  });

  it("a webhook that fails (not 200, not JSON, no status) fails the signer: 500 Internal Server Error", async () => {
    for (const a of [
      { code: 503, body: "down" },
      { code: 200, body: "not json" },
      { code: 200, body: { reason: "x" } },
    ]) {
      answer = a;
      const r = await pay(
        { orchestrator: orchInfo().toString("base64"), type: "fixed" },
        webhookDeps(),
        callerHeaders,
      );
      expect([r.status, message(r)]).toEqual([500, "Internal Server Error"]);
    }
  });
});

describe("start refusals", () => {
  it.each([
    [{ network: "offchain" }, "Remote signer mode requires on-chain network"],
    [
      { network: "devnet", httpAddr: "0.0.0.0:8935" },
      "Refusing to start: remote signer on public -httpAddr 0.0.0.0:8935 with no -remoteSignerWebhookUrl signs payments from this node's deposit for any caller. Set the webhook, or pass -remoteSignerAllowNoAuth to override.",
    ],
    [{ network: "devnet", httpAddr: "0.0.0.0:8935", remoteSignerAllowNoAuth: true }, undefined],
    [{ network: "devnet", httpAddr: "0.0.0.0:8935", remoteSignerWebhookUrl: "http://api/hook" }, undefined],
    [{ network: "devnet" }, undefined],
  ])("%j", (flags, refusal) => {
    expect(signerStartRefusal(flags as never)).toBe(refusal);
  });
});
