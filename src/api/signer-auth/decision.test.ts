import { describe, expect, it } from "vitest";
import { type Caller, capFor, type Decision, decide, type LedgerView } from "./decision.ts";
import { type RemotePaymentState, RemotePaymentStateSchema } from "./payment-state.ts";
import type { SignerPolicy } from "./tenant-policy.ts";

const NOW = Date.parse("2026-11-28T10:00:30Z");
const NOW_S = Math.floor(NOW / 1000);
const T0 = Date.parse("2026-11-28T10:00:00Z");

const signer: SignerPolicy = {
  namespace: "pay",
  name: "signer",
  authCacheSeconds: 60,
  tenants: [
    {
      name: "acme",
      maxPrice: { live: "2000", lv2v: "0.002" },
      apps: [{ app: "echo", maxPrice: { live: "1500" } }],
    },
    { name: "bounded", budget: { perDay: "100000", perStream: "50000" } },
    { name: "old", expiresAt: "2026-11-01T00:00:00Z" },
    { name: "later", expiresAt: "2027-01-01T00:00:00Z" },
  ],
};

const token = (sub: string, scope = "sign"): Caller => ({
  kind: "token",
  sub,
  scopes: new Set(scope.split(" ").filter(Boolean)),
});

const state = (s: Partial<RemotePaymentState> = {}): RemotePaymentState =>
  RemotePaymentStateSchema.parse({
    StateID: "s1",
    LastUpdate: "2026-11-28T10:00:30Z",
    InitialPricePerUnit: 1000,
    InitialPixelsPerUnit: 1,
    Type: "live",
    Balance: "0/1",
    ...s,
  });

const fresh = (): LedgerView => ({ spentToday: 0n });

function run(
  caller: Caller,
  s: RemotePaymentState | null = state(),
  ledger: (tenant: string) => LedgerView = fresh,
): Decision {
  return decide({ signer, caller, state: s, ledger, now: NOW });
}

describe("decide: refusals name their cause", () => {
  it.each<
    [
      string,
      Caller,
      RemotePaymentState | null,
      ((t: string) => LedgerView) | undefined,
      string,
      number,
      RegExp,
    ]
  >([
    [
      "no token",
      { kind: "anonymous" },
      state(),
      undefined,
      "unauthenticated",
      401,
      /no tenant token.*--signing/,
    ],
    [
      "a refused token",
      { kind: "refused", message: "token expired" },
      state(),
      undefined,
      "unauthenticated",
      401,
      /tenant token refused: token expired/,
    ],
    [
      "no signing scope",
      token("acme", "events:write"),
      state(),
      undefined,
      "wrong_scope",
      403,
      /no signing scope/,
    ],
    [
      "admin is not signing",
      token("acme", "admin"),
      state(),
      undefined,
      "wrong_scope",
      403,
      /sign:pay\/signer/,
    ],
    [
      "another signer's scope",
      token("acme", "sign:pay/other"),
      state(),
      undefined,
      "wrong_scope",
      403,
      /no signing scope/,
    ],
    [
      "unknown tenant",
      token("nobody"),
      state(),
      undefined,
      "unknown_tenant",
      403,
      /'nobody' is not a tenant of RemoteSigner pay\/signer/,
    ],
    ["expired tenant", token("old"), state(), undefined, "expired", 403, /expired at 2026-11-01T00:00:00Z/],
    [
      "a session authorized for another tenant",
      token("acme"),
      state({ AuthID: "bounded" }),
      undefined,
      "foreign_session",
      403,
      /another tenant/,
    ],
    [
      "a session the ledger holds for another tenant",
      token("acme"),
      state(),
      () => ({ spentToday: 0n, session: { tenant: "bounded", start: { at: T0, seq: 0 }, spent: 1n } }),
      "foreign_session",
      403,
      /another tenant/,
    ],
    [
      "price above the tenant cap",
      token("acme"),
      state({ InitialPricePerUnit: 2001 }),
      undefined,
      "price_exceeded",
      481,
      /orchestrator price 2001 wei per seconds exceeds tenant 'acme' cap 2000/,
    ],
    [
      "price above the app cap",
      token("acme"),
      state({ App: "echo", InitialPricePerUnit: 1600 }),
      undefined,
      "price_exceeded",
      481,
      /cap 1500 for app 'echo'/,
    ],
    [
      "lv2v price per pixel above the cap",
      token("acme"),
      state({ Type: "lv2v", InitialPricePerUnit: 3, InitialPixelsPerUnit: 1000 }),
      undefined,
      "price_exceeded",
      481,
      /0.003 wei per 720p-pixel-seconds exceeds tenant 'acme' cap 0.002/,
    ],
    [
      "a budget and an uncountable payment",
      token("bounded"),
      state({ Type: "" }),
      undefined,
      "uncountable",
      400,
      /pay with type live, lv2v or fixed/,
    ],
    [
      "over the per-stream budget",
      token("bounded"),
      // 10 s + 30 s at 1000 wei + 20000 credit left = 60000 > 50000.
      state({ SequenceNumber: 3, Balance: "20000/1" }),
      () => ({ spentToday: 0n, session: { tenant: "bounded", start: { at: T0, seq: 0 }, spent: 40_000n } }),
      "over_budget",
      402,
      /per-stream budget of 50000 wei on this session \(60000 wei\)/,
    ],
    [
      "over the daily budget",
      token("bounded"),
      state({ SequenceNumber: 0 }),
      () => ({ spentToday: 95_000n }),
      "over_budget",
      402,
      /daily budget of 100000 wei \(105000 wei today, UTC\)/,
    ],
  ])("%s", (_, caller, s, ledger, outcome, status, reason) => {
    const d = run(caller, s, ledger);
    expect(d.outcome).toBe(outcome);
    expect(d.answer.status).toBe(status);
    expect(d.answer.reason).toMatch(reason);
    expect(d.answer.expiry).toBeUndefined();
    expect(d.spend).toBeUndefined();
  });
});

describe("decide: allowed answers", () => {
  it("grants authCacheSeconds, the tenant as auth_id and the tightest cap for the type", () => {
    const d = run(token("acme"), state({ App: "echo" }));
    expect(d).toMatchObject({
      outcome: "allowed",
      tenant: "acme",
      answer: {
        status: 200,
        expiry: NOW_S + 60,
        auth_id: "acme",
        maxPrice: { price: "1500", unit: "seconds", currency: "wei" },
      },
    });
    expect(d.answer.reason).toBeUndefined();
  });

  it.each<[string, Partial<RemotePaymentState>, object | undefined]>([
    [
      "the tenant's cap for another app",
      { App: "other" },
      { price: "2000", unit: "seconds", currency: "wei" },
    ],
    [
      "the lv2v cap in its unit",
      { Type: "lv2v", InitialPricePerUnit: 1, InitialPixelsPerUnit: 1000 },
      { price: "0.002", unit: "720p-pixel-seconds", currency: "wei" },
    ],
    ["no cap for the type: no maxPrice", { Type: "fixed" }, undefined],
    ["no type: no maxPrice (the signer would refuse one)", { Type: "" }, undefined],
  ])("%s", (_, s, maxPrice) => {
    expect(run(token("acme"), state(s)).answer.maxPrice).toEqual(maxPrice);
  });

  it("accepts a token scoped to this signer only, and a tenant not yet expired", () => {
    expect(run(token("acme", "sign:pay/signer")).outcome).toBe("allowed");
    expect(run(token("later")).outcome).toBe("allowed");
  });

  it("counts a new session's spend, the whole of it new today", () => {
    const d = run(token("bounded"));
    expect(d.spend).toEqual({ stateId: "s1", start: { at: NOW, seq: 0 }, spent: 10_000n, added: 10_000n });
  });

  it("adds only what the session spent since the ledger last saw it", () => {
    const d = run(token("bounded"), state({ SequenceNumber: 3 }), () => ({
      spentToday: 30_000n,
      session: { tenant: "bounded", start: { at: T0, seq: 0 }, spent: 25_000n },
    }));
    expect(d.spend).toMatchObject({ spent: 40_000n, added: 15_000n });
  });

  it("grants no longer than the budget lasts at the session's rate", () => {
    // 50000 per stream - 40000 spent = 10 s at 1000 wei/s; the day has 100000 - 30000 - 15000 left.
    const d = run(token("bounded"), state({ SequenceNumber: 3 }), () => ({
      spentToday: 30_000n,
      session: { tenant: "bounded", start: { at: T0, seq: 0 }, spent: 25_000n },
    }));
    expect(d.answer.expiry).toBe(NOW_S + 10);
  });

  it("grants no expiry when the budget has no second left: the signer asks at every payment", () => {
    const d = run(token("bounded"), state({ SequenceNumber: 3, Balance: "9500/1" }), () => ({
      spentToday: 0n,
      session: { tenant: "bounded", start: { at: T0, seq: 0 }, spent: 40_000n },
    }));
    expect(d.outcome).toBe("allowed");
    expect(d.answer.expiry).toBeUndefined();
  });

  it("allows without counting when the signer sends no state", () => {
    const d = run(token("acme"), null);
    expect(d).toMatchObject({ outcome: "allowed", answer: { status: 200, auth_id: "acme" } });
    expect(d.spend).toBeUndefined();
  });

  it("picks the tightest of tenant and app caps", () => {
    const tenant = signer.tenants[0]!;
    expect(capFor(tenant, "echo", "live")).toEqual({ num: 1500n, den: 1n });
    expect(capFor(tenant, "other", "live")).toEqual({ num: 2000n, den: 1n });
    expect(capFor(tenant, "echo", "fixed")).toBeUndefined();
    expect(
      capFor(
        { name: "x", maxPrice: { live: "5" }, apps: [{ app: "a", maxPrice: { live: "9" } }] },
        "a",
        "live",
      ),
    ).toEqual({
      num: 5n,
      den: 1n,
    });
  });
});
