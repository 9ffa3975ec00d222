// The auth webhook's decision, a pure function: who the caller is (the tenant's signing JWT from
// the gateway's Authorization header), whether the RemoteSigner pays for that tenant, at what cap,
// and whether its budget allows this payment. The answer is go-livepeer's authResponse: the signer
// returns `status` and `reason` to the gateway when status != 200 (no state, as if the payment
// never happened), and with 200 skips the webhook for the session until `expiry`.
import { maySign } from "../auth/claims.ts";
import {
  goTimeMs,
  isPaymentType,
  type PaymentType,
  PRICE_UNIT,
  type RemotePaymentState,
} from "./payment-state.ts";
import { compare, decimalString, parseRational, type Rational } from "./rational.ts";
import {
  type SessionStart,
  sessionPrice,
  sessionPriceParts,
  sessionSpend,
  weiPerSecond,
} from "./session-spend.ts";
import type { PriceCaps, SignerPolicy, SignerTenant } from "./tenant-policy.ts";

/** go-livepeer's HTTPStatusPriceExceeded: the gateway tries another orchestrator. */
export const PRICE_EXCEEDED = 481;
/** A budget is spent: 402 Payment Required, until the next day or for good on this stream. */
export const BUDGET_SPENT = 402;

export type Caller =
  | { kind: "anonymous" }
  | { kind: "refused"; message: string }
  | { kind: "token"; sub: string; scopes: ReadonlySet<string> };

/** What the ledger knows of the tenant and the session before this call. */
export interface LedgerView {
  /** Wei the tenant spent today (UTC) through this signer. */
  spentToday: bigint;
  /** The session as first seen, its tenant and what it had spent (absent: a session new to the API). */
  session?: { tenant: string; start: SessionStart; spent: bigint } | undefined;
}

export interface MaxPrice {
  price: string;
  unit: string;
  currency: "wei";
}

export interface AuthAnswer {
  status: number;
  reason?: string;
  expiry?: number;
  auth_id?: string;
  maxPrice?: MaxPrice;
}

export type Outcome =
  | "allowed"
  | "unauthenticated"
  | "wrong_scope"
  | "unknown_tenant"
  | "expired"
  | "foreign_session"
  | "price_exceeded"
  | "uncountable"
  | "over_budget";

export interface Spend {
  /** The session's key in the ledger: the signer's StateID. */
  stateId: string;
  start: SessionStart;
  /** The session's spend up to and with this payment. */
  spent: bigint;
  /** What this call adds to the tenant's day. */
  added: bigint;
}

export interface Decision {
  outcome: Outcome;
  answer: AuthAnswer;
  tenant?: string;
  /** Allowed with a state the API could count: what to record. */
  spend?: Spend;
}

export interface DecisionInput {
  signer: SignerPolicy;
  caller: Caller;
  state: RemotePaymentState | null | undefined;
  /** The ledger's view for a tenant (read only once the tenant is known). */
  ledger: (tenant: string) => LedgerView;
  now: number;
}

const refuse = (outcome: Outcome, status: number, reason: string, tenant?: string): Decision => ({
  outcome,
  answer: { status, reason },
  ...(tenant ? { tenant } : {}),
});

// Caps are the RemoteSigners' spec texts, read on every payment: parsed once (a bounded memo).
const parsedCaps = new Map<string, Rational | undefined>();
function capValue(text: string): Rational | undefined {
  if (parsedCaps.has(text)) return parsedCaps.get(text);
  if (parsedCaps.size >= 1_000) parsedCaps.clear();
  const cap = parseRational(text);
  parsedCaps.set(text, cap);
  return cap;
}

/** The tightest cap of the tenant and of the state's app for this payment type. */
export function capFor(tenant: SignerTenant, app: string, type: PaymentType): Rational | undefined {
  const caps: (PriceCaps | undefined)[] = [
    tenant.maxPrice,
    tenant.apps?.find((a) => a.app === app)?.maxPrice,
  ];
  let tightest: Rational | undefined;
  for (const c of caps) {
    const text = c?.[type];
    const cap = text === undefined ? undefined : capValue(text);
    if (cap && cap.num > 0n && (!tightest || compare(cap, tightest) < 0)) tightest = cap;
  }
  return tightest;
}

function whoIsCalling(i: DecisionInput): Decision | SignerTenant {
  // The signer's name, for a refusal's reason only.
  const signer = () => `${i.signer.namespace}/${i.signer.name}`;
  const c = i.caller;
  if (c.kind === "anonymous") {
    return refuse(
      "unauthenticated",
      401,
      "no tenant token: send 'Authorization: Bearer <signing token>' to the signer (the SDK's signer_headers, a gateway's -remoteSignerHeaders); mint one with livepeer-operator token --sub TENANT --signing",
    );
  }
  if (c.kind === "refused") return refuse("unauthenticated", 401, `tenant token refused: ${c.message}`);
  if (!maySign(c.scopes, i.signer.namespace, i.signer.name)) {
    return refuse(
      "wrong_scope",
      403,
      `the token of '${c.sub}' has no signing scope (sign, or sign:${signer()}): mint one with livepeer-operator token --sub ${c.sub} --signing`,
      c.sub,
    );
  }
  const tenant = i.signer.tenants.find((t) => t.name === c.sub);
  if (!tenant) {
    return refuse(
      "unknown_tenant",
      403,
      `'${c.sub}' is not a tenant of RemoteSigner ${signer()}: add it to spec.tenants`,
      c.sub,
    );
  }
  const expires = termsOf(tenant).expiresMs;
  if (Number.isFinite(expires) && expires <= i.now) {
    return refuse(
      "expired",
      403,
      `tenant '${tenant.name}' of RemoteSigner ${signer()} expired at ${tenant.expiresAt}: extend spec.tenants[].expiresAt`,
      tenant.name,
    );
  }
  return tenant;
}

const budgetOf = (text: string | undefined): bigint | undefined =>
  text !== undefined && /^\d+$/.test(text.trim()) ? BigInt(text.trim()) : undefined;

/** A tenant's terms as its spec states them, parsed once per spec (the informer gives a new object per change). */
interface TenantTerms {
  /** spec expiresAt in ms (NaN: none, or not a date). */
  expiresMs: number;
  perDay: bigint | undefined;
  perStream: bigint | undefined;
  /** By app and payment type: the cap and the maxPrice an answer carries. */
  caps: Map<string, { cap: Rational | undefined; maxPrice: MaxPrice | undefined }>;
}
const terms = new WeakMap<SignerTenant, TenantTerms>();

function termsOf(tenant: SignerTenant): TenantTerms {
  let t = terms.get(tenant);
  if (!t) {
    t = {
      expiresMs: tenant.expiresAt ? Date.parse(tenant.expiresAt) : Number.NaN,
      perDay: budgetOf(tenant.budget?.perDay),
      perStream: budgetOf(tenant.budget?.perStream),
      caps: new Map(),
    };
    terms.set(tenant, t);
  }
  return t;
}

function capOf(t: TenantTerms, tenant: SignerTenant, app: string, type: PaymentType) {
  const key = `${type}\n${app}`;
  let c = t.caps.get(key);
  if (!c) {
    const cap = capFor(tenant, app, type);
    c = { cap, maxPrice: cap && { price: decimalString(cap), unit: PRICE_UNIT[type], currency: "wei" } };
    // Apps are the spec's (a few) or what a state names: bounded all the same.
    if (t.caps.size >= 100) t.caps.clear();
    t.caps.set(key, c);
  }
  return c;
}

export function decide(i: DecisionInput): Decision {
  const who = whoIsCalling(i);
  if ("outcome" in who) return who;
  const tenant = who;
  const state = i.state;
  const nowSeconds = Math.floor(i.now / 1000);
  const allowed = (expirySeconds: number, maxPrice?: MaxPrice, spend?: Spend): Decision => {
    const answer: AuthAnswer = { status: 200 };
    if (expirySeconds > 0) answer.expiry = nowSeconds + expirySeconds;
    answer.auth_id = tenant.name;
    if (maxPrice) answer.maxPrice = maxPrice;
    const d: Decision = { outcome: "allowed", answer, tenant: tenant.name };
    if (spend) d.spend = spend;
    return d;
  };
  // The signer always sends a state; without one there is nothing to cap or count.
  if (!state) return allowed(0);

  const view = i.ledger(tenant.name);
  if (
    (state.AuthID && state.AuthID !== tenant.name) ||
    (view.session && view.session.tenant !== tenant.name)
  ) {
    return refuse(
      "foreign_session",
      403,
      "this payment session was authorized for another tenant: start a new session with your own token",
      tenant.name,
    );
  }

  const t = termsOf(tenant);
  let maxPrice: MaxPrice | undefined;
  if (isPaymentType(state.Type)) {
    const { cap, maxPrice: capAnswer } = capOf(t, tenant, state.App, state.Type);
    // Compared as the state gives it (a comparison needs no reduced fraction); shown reduced.
    const price = sessionPriceParts(state);
    if (cap && price && compare(price, cap) > 0) {
      return refuse(
        "price_exceeded",
        PRICE_EXCEEDED,
        `orchestrator price ${decimalString(sessionPrice(state)!)} wei per ${PRICE_UNIT[state.Type]} exceeds tenant '${tenant.name}' cap ${decimalString(cap)}${state.App ? ` for app '${state.App}'` : ""}`,
        tenant.name,
      );
    }
    maxPrice = capAnswer;
  }

  const { perDay, perStream } = t;
  const start = view.session?.start ?? { at: goTimeMs(state.LastUpdate) ?? i.now, seq: state.SequenceNumber };
  const spent = state.StateID ? sessionSpend(state, start) : undefined;
  if (spent === undefined) {
    if (perDay !== undefined || perStream !== undefined) {
      return refuse(
        "uncountable",
        400,
        `tenant '${tenant.name}' has a budget, and a payment of type '${state.Type}' shows the API no spend: pay with type live, lv2v or fixed`,
        tenant.name,
      );
    }
    return allowed(i.signer.authCacheSeconds, maxPrice);
  }
  const before = view.session?.spent ?? 0n;
  const added = spent > before ? spent - before : 0n;
  if (perStream !== undefined && spent > perStream) {
    return refuse(
      "over_budget",
      BUDGET_SPENT,
      `tenant '${tenant.name}' spent its per-stream budget of ${perStream} wei on this session (${spent} wei): start a new stream or raise budget.perStream`,
      tenant.name,
    );
  }
  if (perDay !== undefined && view.spentToday + added > perDay) {
    return refuse(
      "over_budget",
      BUDGET_SPENT,
      `tenant '${tenant.name}' spent its daily budget of ${perDay} wei (${view.spentToday + added} wei today, UTC): wait for tomorrow or raise budget.perDay`,
      tenant.name,
    );
  }
  // The signer skips the webhook until expiry: grant no more time than the budgets last at this
  // session's rate, so it asks again before they run out.
  let least = perStream === undefined ? undefined : perStream - spent;
  if (perDay !== undefined) {
    const dayLeft = perDay - view.spentToday - added;
    if (least === undefined || dayLeft < least) least = dayLeft;
  }
  let expiry = i.signer.authCacheSeconds;
  // Whole seconds are the same whatever the rate's reduction: the price as the state gives it.
  const rate = least === undefined ? undefined : weiPerSecond(state, sessionPriceParts(state));
  if (least !== undefined && rate) {
    const runway = (least * rate.den) / rate.num; // whole seconds the rest lasts
    if (runway < BigInt(expiry)) expiry = Number(runway);
  }
  return allowed(expiry, maxPrice, { stateId: state.StateID, start, spent, added });
}
