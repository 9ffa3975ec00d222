// POST /generate-live-payment as server/remote_signer.go GenerateLivePayment answers it, step by
// step in the node's order: decode the request (the OrchestratorInfo's protobuf bytes, the signed
// state), check the state's signature and that it belongs to this orchestrator, app and type,
// decide whether the session must be refreshed (480 with Livepeer-Orchestrator-URL: auth token in
// its last 10 %, ticket parameters expired), work out the billable units (live: seconds since the
// last payment, 10 s at first; lv2v: 1280x720x30 pixels per second, 60 s at first; fixed: 1),
// check the orchestrator's price against every ceiling (-maxPricePerUnit, the request's maxPrice,
// the session's initial price: 481), stage the balance (482 "no tickets" when the credit left
// covers the fee), make and sign the tickets (pm), call the auth webhook (its status and reason;
// its maxPrice is one more ceiling), then sign the new state. Errors are the node's
// respondJsonError: {"error": {"message": ...}}, 500 as "Internal Server Error".
import { getAddress, type Wallet } from "ethers";
import {
  add,
  ceil,
  compare,
  div,
  floatString,
  mul,
  parseGoRat,
  type Rational,
  rational,
  ratText,
  ZERO,
} from "../../node/pricing/rational.ts";
import {
  bytesToBigInt,
  decodeMessage,
  encodeMessage,
  type OrchestratorInfoMessage,
} from "../../node/wire/messages.ts";
import type { GlogLevel } from "../glog.ts";
import { type AuthWebhook, authLivePayment } from "./auth-webhook.ts";
import {
  decodePaymentState,
  encodePaymentState,
  newPaymentState,
  type RemotePaymentState,
  randomStateId,
} from "./payment-state.ts";
import { keccak, nodeSign, verifyNodeSignature } from "./signatures.ts";
import { type ExpirationParams, ticketBatchPayment, ticketEv } from "./tickets.ts";

export const HTTP_STATUS_REFRESH_SESSION = 480;
export const HTTP_STATUS_PRICE_EXCEEDED = 481;
export const HTTP_STATUS_NO_TICKETS = 482;
export const REFRESH_SESSION_ORCHESTRATOR_URL_HEADER = "Livepeer-Orchestrator-URL";
export const SIGNER_AUTH_ID_HEADER = "Signer-Auth-Id";

/** core/orchestrator.go authTokenValidPeriod. */
const AUTH_TOKEN_VALID_PERIOD_S = 30 * 60;
/** pm/recipient.go paramsExpiryBuffer (blocks). */
const PARAMS_EXPIRY_BUFFER = 1n;
/** server/segment_rpc.go priceIncreaseThreshold. */
const PRICE_INCREASE_THRESHOLD = rational(2n);
const MAX_TICKETS = 100;

/** What the signer's account looks like on chain now (TicketBroker.getSenderInfo, rounds, head). */
export interface SenderChainFacts {
  deposit: bigint;
  reserve: bigint;
  withdrawRound: bigint;
  lastInitializedRound: bigint;
  /** The node's LastSeenL1Block: here the head of the chain it talks to. */
  lastSeenBlock: bigint;
}

export interface SignerLimits {
  /** -maxTicketEV, -maxTotalEV (wei), -depositMultiplier. */
  maxTicketEV: Rational;
  maxTotalEV: Rational;
  depositMultiplier: bigint;
  /** -maxPricePerUnit / -pixelsPerUnit when > 0: the "configured maximum price" (wei per pixel). */
  maxPrice?: Rational;
}

export type Log = (level: GlogLevel, where: string, message: string) => void;

export interface LivePaymentDeps {
  wallet: Wallet;
  chain(): Promise<SenderChainFacts>;
  limits: SignerLimits;
  webhook?: AuthWebhook;
  log: Log;
  /** Milliseconds since the epoch (tests move time). */
  now?: () => number;
}

export interface LivePaymentRequest {
  body: Buffer;
  /** Go's r.Header (canonical keys). */
  headers: Record<string, string[]>;
  ip: string;
}

export interface Answer {
  status: number;
  json: unknown;
  headers?: Record<string, string>;
}

class Refusal extends Error {
  readonly status: number;
  readonly headers: Record<string, string> | undefined;
  constructor(status: number, message: string, headers?: Record<string, string>) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

const refuse = (status: number, message: string, headers?: Record<string, string>): never => {
  throw new Refusal(status, message, headers);
};

/** server/handlers.go handleAPIError: 500 and 503 keep their reason out of the answer. */
export function apiError(status: number, message: string): Answer {
  const shown =
    status === 500 ? "Internal Server Error" : status === 503 ? "Service Unavailable Error" : message;
  return { status, json: { error: { message: shown } } };
}

export async function generateLivePayment(req: LivePaymentRequest, d: LivePaymentDeps): Promise<Answer> {
  const requestId = randomStateId();
  const context: string[] = [`request_id=${requestId}`];
  const clog = (level: GlogLevel, where: string, message: string) =>
    d.log(level, where, `${context.join(" ")} ${message}`);
  clog("I", "remote_signer.go:361", `Live payment request ip=${req.ip}`);
  try {
    return await payment(req, d, context, clog);
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    clog("E", "handlers.go:1718", `Error with API code=${err.status} err=${err.message}`);
    const answer = apiError(err.status, err.message);
    return err.headers ? { ...answer, headers: err.headers } : answer;
  }
}

async function payment(
  req: LivePaymentRequest,
  d: LivePaymentDeps,
  context: string[],
  clog: Log,
): Promise<Answer> {
  const now = d.now?.() ?? Date.now();
  const body = decodeRequest(req.body);
  if (body.orchestrator.length === 0) refuse(400, "missing orchestrator");
  let info: OrchestratorInfoMessage;
  try {
    info = decodeMessage("OrchestratorInfo", body.orchestrator);
  } catch (err) {
    clog(
      "E",
      "remote_signer.go:383",
      `Failed to unmarshal orch info err=${JSON.stringify((err as Error).message)}`,
    );
    return refuse(400, (err as Error).message);
  }
  const price = info.priceInfo;
  if (!price || Number(price.pricePerUnit) === 0 || Number(price.pixelsPerUnit) === 0) {
    refuse(400, "missing or zero priceInfo");
  }
  const ticketParams = info.ticketParams;
  if (!ticketParams) return refuse(400, "missing ticketParams in OrchestratorInfo");
  const orchAddr = addressOf(info.address);

  // The state: verified and continued, or new.
  const hasState = body.state.State.length > 0 || body.state.Sig.length > 0;
  let state: RemotePaymentState;
  if (hasState) {
    if (!verifyNodeSignature(d.wallet.address, body.state.State, body.state.Sig)) refuse(400, "invalid sig");
    try {
      state = decodePaymentState(body.state.State);
    } catch {
      return refuse(400, "invalid state");
    }
    if (state.OrchestratorAddress.toLowerCase() !== orchAddr.toLowerCase()) {
      refuse(400, "orchestratorAddress mismatch");
    }
    if (state.App !== body.app) refuse(400, "app mismatch");
    if (state.Type !== "" && state.Type !== body.type) refuse(400, "job type mismatch");
    state.Type = body.type;
    state.SequenceNumber++;
  } else {
    state = newPaymentState({
      StateID: randomStateId(),
      OrchestratorAddress: orchAddr,
      App: body.app,
      InitialPricePerUnit: Number(price!.pricePerUnit),
      InitialPixelsPerUnit: Number(price!.pixelsPerUnit),
      Type: body.type,
    });
  }
  context.push(`state_id=${state.StateID}`, `seqNo=${state.SequenceNumber}`);
  let manifestId = body.manifestId;
  if (manifestId === "") {
    if (hasState) refuse(400, "missing manifestID");
    manifestId = randomStateId();
  }
  context.push(`manifest_id=${manifestId}`);

  const sessionId = `0x${Buffer.concat([Buffer.alloc(32), ticketParams.recipientRandHash])
    .subarray(-32)
    .toString("hex")}`;
  const nonce = state.PMSessionID === sessionId ? state.SenderNonce : 0;
  const initialPrice = rational(BigInt(state.InitialPricePerUnit), BigInt(state.InitialPixelsPerUnit || 1));
  const chain = await d.chain();

  // shouldRefreshSession: the auth token's last 10 %, expired ticket parameters.
  const token = info.authToken;
  if (!token) refuse(400, "remote signer could not check whether to refresh session: missing auth token");
  const refreshPoint = Number(token!.expiration) - AUTH_TOKEN_VALID_PERIOD_S * 0.1;
  const paramsProblem = ticketParamsProblem(ticketParams, 1, chain, d.limits);
  if (now / 1000 > refreshPoint || paramsProblem === "expired") {
    refuse(HTTP_STATUS_REFRESH_SESSION, "refresh session for remote signer", {
      [REFRESH_SESSION_ORCHESTRATOR_URL_HEADER]: info.transcoder,
    });
  }
  if (paramsProblem)
    refuse(400, `remote signer could not check whether to refresh session: ${paramsProblem}`);

  // Billable units.
  const lastUpdate = state.LastUpdate.startsWith("0001-") ? now : Date.parse(state.LastUpdate);
  let billableSecs = (now - lastUpdate) / 1000;
  let billableUnits = BigInt(body.inPixels);
  if (body.type === "lv2v") {
    if (billableSecs <= 0) billableSecs = 60;
    billableUnits = BigInt(Math.trunc(1280 * 720 * 30 * billableSecs));
  } else if (body.type === "live") {
    if (billableSecs <= 0) billableSecs = 10;
    billableUnits = BigInt(Math.ceil(billableSecs));
  } else if (body.type === "fixed") {
    billableUnits = 1n;
  } else if (body.type !== "") {
    refuse(400, "invalid job type");
  }
  if (billableUnits <= 0n) refuse(400, "missing billable unit or job type");

  // Price ceilings before the webhook.
  const orchPrice = rational(BigInt(price!.pricePerUnit), BigInt(price!.pixelsPerUnit));
  const requestMax = parseMaxPrice(body.maxPrice, body.type);
  if (typeof requestMax === "string") return refuse(400, requestMax);
  if (hasState && (state.InitialPricePerUnit <= 0 || state.InitialPixelsPerUnit <= 0)) {
    refuse(400, "invalid initial price in state");
  }
  const exceeded = priceCeilingProblem(orchPrice, [
    { source: "configured maximum price", price: d.limits.maxPrice },
    { source: "request maxPrice", price: requestMax },
    { source: "initial session price", price: hasState ? initialPrice : undefined },
  ]);
  if (exceeded) {
    clog("W", "remote_signer.go:573", `Rejecting payment request: ${exceeded}`);
    refuse(HTTP_STATUS_PRICE_EXCEEDED, exceeded);
  }

  // The balance: what the session holds, the fee, the tickets that cover the gap.
  const fee = mul(rational(billableUnits), initialPrice);
  const existing = state.Balance === "" ? ZERO : (parseGoRat(state.Balance) ?? ZERO);
  const ev = ticketEv(ticketParams);
  const minCredit = compare(ev, fee) > 0 ? ev : fee;
  let numTickets = 0;
  if (compare(existing, minCredit) < 0 && ev.num !== 0n) {
    numTickets = Number(ceil(div(add(minCredit, rational(-existing.num, existing.den)), ev)));
  }
  if (numTickets <= 0) {
    clog("E", "remote_signer.go:588", "No tickets");
    refuse(HTTP_STATUS_NO_TICKETS, "no tickets");
  }
  if (numTickets > MAX_TICKETS) {
    const message = `numTickets ${numTickets} exceeds maximum of 100`;
    clog("E", "remote_signer.go:599", `${message}: if legitimate check EV config ${floatString(ev, 3)}`);
    refuse(400, message);
  }
  // genPayment: the price may not have more than doubled since the session began.
  if (compare(orchPrice, mul(initialPrice, PRICE_INCREASE_THRESHOLD)) > 0) {
    const message = `Orchestrator price has more than doubled, Orchestrator price: ${ratText(orchPrice)}, Orchestrator initial price: ${ratText(initialPrice)}`;
    clog("E", "remote_signer.go:613", `Could not create payment err=${JSON.stringify(message)}`);
    refuse(HTTP_STATUS_PRICE_EXCEEDED, message);
  }
  const batchProblem = ticketParamsProblem(ticketParams, numTickets, chain, d.limits);
  if (batchProblem) {
    clog("E", "remote_signer.go:613", `Could not create payment err=${JSON.stringify(batchProblem)}`);
    refuse(500, batchProblem);
  }
  const expiration: ExpirationParams = {
    creationRound: BigInt(ticketParams.expirationParams?.creationRound ?? 0),
    creationRoundBlockHash: ticketParams.expirationParams?.creationRoundBlockHash ?? Buffer.alloc(32),
  };
  const paymentMessage = ticketBatchPayment(d.wallet, ticketParams, expiration, nonce, numTickets, {
    pricePerUnit: price!.pricePerUnit,
    pixelsPerUnit: price!.pixelsPerUnit,
  });
  clog(
    "I",
    "segment_rpc.go:851",
    `Created new payment manifestID=${manifestId} sessionID=${token!.sessionId} recipient=${addressOf(ticketParams.recipient)} faceValue=${formatEth(bytesToBigInt(ticketParams.faceValue))} winProb=${floatString(rational(bytesToBigInt(ticketParams.winProb), (1n << 256n) - 1n), 10)} price=${floatString(orchPrice, 3)} wei/pixel numTickets=${numTickets}`,
  );
  const segCreds = segmentCredentials(d.wallet, manifestId, token!, body.capabilities);

  const newCredit = mul(rational(BigInt(numTickets)), ev);
  const newBalance = add(add(existing, newCredit), rational(-fee.num, fee.den));
  state.Balance = ratText(newBalance);
  state.LastUpdate = new Date(now).toISOString();
  state.PMSessionID = sessionId;
  state.SenderNonce = nonce + numTickets;

  // The auth webhook, after the tickets are made (as the node orders it).
  const auth = await authLivePayment(d.webhook, req.headers, state, Math.floor(now / 1000));
  if (auth.status !== 200) refuse(auth.status, "reason" in auth ? auth.reason : "");
  if (auth.answer) {
    state.AuthExpiry = auth.answer.expiry ?? 0;
    if (auth.answer.maxPrice) {
      const authMax = parseMaxPrice(auth.answer.maxPrice, body.type);
      if (typeof authMax === "string") refuse(502, `signer auth invalid maxPrice: ${authMax}`);
      const over = priceCeilingProblem(orchPrice, [
        { source: "auth webhook maxPrice", price: authMax as Rational },
      ]);
      if (over) {
        clog("W", "remote_signer.go:686", `Rejecting payment request: ${over}`);
        refuse(HTTP_STATUS_PRICE_EXCEEDED, over);
      }
    }
  }
  let authId = req.headers[SIGNER_AUTH_ID_HEADER]?.[0] ?? "";
  if (auth.answer?.auth_id) authId = auth.answer.auth_id;
  if (authId !== "" && state.AuthID !== authId) {
    if (state.AuthID !== "") {
      clog(
        "W",
        "remote_signer.go:701",
        `Remote signer auth ID changed oldAuthID=${state.AuthID} newAuthID=${authId}`,
      );
      refuse(500, "remote signer auth ID changed");
    }
    state.AuthID = authId;
  }
  context.push(`auth_id=${state.AuthID}`);

  const stateBytes = encodePaymentState(state);
  const stateSig = nodeSign(d.wallet, stateBytes);
  clog(
    "I",
    "remote_signer.go:724",
    `Signed numTickets=${numTickets} nonce=${state.SenderNonce} fee=${floatString(fee, 0)} sessionId=${token!.sessionId} pmSessionId=${sessionId} oldBalance=${floatString(existing, 0)} newBalance=${floatString(newBalance, 0)}`,
  );
  return {
    status: 200,
    json: {
      payment: encodeMessage("Payment", paymentMessage).toString("base64"),
      segCreds,
      state: { State: stateBytes.toString("base64"), Sig: stateSig.toString("base64") },
    },
  };
}

interface DecodedRequest {
  state: { State: Buffer; Sig: Buffer };
  orchestrator: Buffer;
  manifestId: string;
  app: string;
  inPixels: number;
  type: string;
  maxPrice: unknown;
  capabilities: Buffer;
}

/** json.Decoder into RemotePaymentRequest: keys matched case-insensitively, []byte as base64. */
export function decodeRequest(raw: Buffer): DecodedRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString("utf8"));
  } catch (err) {
    return refuse(400, (err as Error).message);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    return refuse(400, "json: cannot unmarshal into Go value of type server.RemotePaymentRequest");
  }
  const field = (o: object, name: string): unknown =>
    Object.entries(o).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  const bytes = (value: unknown, name: string): Buffer => {
    if (value === undefined || value === null) return Buffer.alloc(0);
    if (typeof value !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
      return refuse(400, `illegal base64 data in field ${name}`);
    }
    return Buffer.from(value, "base64");
  };
  const text = (value: unknown, name: string): string => {
    if (value === undefined || value === null) return "";
    if (typeof value !== "string")
      return refuse(
        400,
        `json: cannot unmarshal ${typeof value} into Go struct field RemotePaymentRequest.${name} of type string`,
      );
    return value;
  };
  const state = field(parsed, "state");
  const stateObject = state && typeof state === "object" ? state : {};
  const inPixels = field(parsed, "inPixels") ?? 0;
  if (typeof inPixels !== "number" || !Number.isInteger(inPixels)) {
    refuse(400, "json: cannot unmarshal into Go struct field RemotePaymentRequest.inPixels of type int64");
  }
  return {
    state: {
      State: bytes(field(stateObject, "State"), "state.State"),
      Sig: bytes(field(stateObject, "Sig"), "state.Sig"),
    },
    orchestrator: bytes(field(parsed, "orchestrator"), "orchestrator"),
    manifestId: text(field(parsed, "ManifestID"), "ManifestID"),
    app: text(field(parsed, "app"), "app"),
    inPixels: inPixels as number,
    type: text(field(parsed, "type"), "type"),
    maxPrice: field(parsed, "maxPrice"),
    capabilities: bytes(field(parsed, "capabilities"), "capabilities"),
  };
}

/** remote_signer.go parseRemotePaymentMaxPrice: a ceiling, none, or the reason it is invalid. */
export function parseMaxPrice(value: unknown, paymentType: string): Rational | undefined | string {
  if (value === undefined || value === null) return undefined;
  const o = value as { price?: unknown; unit?: unknown; currency?: unknown };
  const priceText =
    typeof o.price === "number" ? String(o.price) : typeof o.price === "string" ? o.price.trim() : "";
  const price = parseGoRat(priceText);
  if (!price || price.num <= 0n) return "maxPrice.price must be a positive decimal";
  if (
    String(o.currency ?? "")
      .trim()
      .toLowerCase() !== "wei"
  )
    return "maxPrice.currency must be wei";
  const expected = { live: "seconds", lv2v: "720p-pixel-seconds", fixed: "fixed" }[paymentType];
  if (!expected) return "maxPrice requires payment type live, lv2v, or fixed";
  if (
    String(o.unit ?? "")
      .trim()
      .toLowerCase() !== expected
  ) {
    return `maxPrice.unit must be ${expected} for payment type ${paymentType}`;
  }
  return price;
}

/** remote_signer.go checkRemotePaymentPrice: the lowest ceiling decides. */
export function priceCeilingProblem(
  orchPrice: Rational,
  ceilings: { source: string; price: Rational | undefined }[],
): string | undefined {
  let effective: { source: string; price: Rational } | undefined;
  for (const c of ceilings) {
    if (!c.price) continue;
    if (!effective || compare(c.price, effective.price) < 0) effective = { source: c.source, price: c.price };
  }
  if (effective && compare(orchPrice, effective.price) > 0) {
    return `orchestrator price ${floatString(orchPrice, 3)} exceeds ${effective.source} ceiling ${floatString(effective.price, 3)}`;
  }
  return undefined;
}

/**
 * pm/sender.go validateTicketParams (+ validateSender) for `count` tickets: "expired" for
 * ErrTicketParamsExpired, another reason, or undefined when the tickets may be made.
 */
function ticketParamsProblem(
  params: OrchestratorInfoMessage["ticketParams"] & object,
  count: number,
  chain: SenderChainFacts,
  limits: SignerLimits,
): string | undefined {
  const expirationBlock = bytesToBigInt(params.expirationBlock);
  if (expirationBlock === 0n) return "ticketParams expiration block is 0";
  if (expirationBlock - chain.lastSeenBlock <= PARAMS_EXPIRY_BUFFER) return "expired";
  const faceValue = bytesToBigInt(params.faceValue);
  const ev = ticketEv(params);
  if (ev.num <= 0n) return undefined;
  if (compare(ev, rational(faceValue)) >= 0) return `ticket faceValue too low faceValue=${faceValue}`;
  if (compare(ev, limits.maxTicketEV) > 0) {
    return `ticket EV ${floatString(ev, 5)} > max ticket EV ${floatString(limits.maxTicketEV, 5)}`;
  }
  if (chain.withdrawRound !== 0n && chain.withdrawRound <= chain.lastInitializedRound + 1n) {
    return "unable to validate sender: deposit and reserve is set to unlock soon";
  }
  if (chain.reserve === 0n) return "no sender reserve";
  if (chain.deposit === 0n) return "no sender deposit";
  const totalEv = mul(ev, rational(BigInt(count)));
  if (compare(totalEv, limits.maxTotalEV) > 0) {
    return `total ticket EV ${floatString(totalEv, 5)} for ${count} tickets > max total ticket EV ${floatString(limits.maxTotalEV, 5)}`;
  }
  const maxFaceValue = chain.deposit / limits.depositMultiplier;
  if (faceValue > maxFaceValue) return `ticket faceValue ${faceValue} > max faceValue ${maxFaceValue}`;
  return undefined;
}

/**
 * genSegCreds with an empty segment: a SegData for the manifest, seq 0, the hash of no bytes, the
 * orchestrator's auth token, signed (Sign(keccak256(manifestID + seq + hash + profiles))).
 */
function segmentCredentials(
  wallet: Wallet,
  manifestId: string,
  token: NonNullable<OrchestratorInfoMessage["authToken"]>,
  capabilities: Buffer,
): string {
  const hash = keccak(Buffer.alloc(0));
  const flattened = Buffer.concat([Buffer.from(manifestId), Buffer.alloc(32), hash]);
  const sig = nodeSign(wallet, keccak(flattened));
  const caps = capabilities.length > 0 ? decodeCapabilities(capabilities) : undefined;
  return encodeMessage("SegData", {
    manifestId: Buffer.from(manifestId),
    seq: 0,
    hash,
    profiles: Buffer.from("invalid"),
    sig,
    authToken: token,
    ...(caps ? { capabilities: caps } : {}),
  }).toString("base64");
}

/** req.Capabilities: protobuf net.Capabilities, read through a SegData wrapper (field 7). */
function decodeCapabilities(bytes: Buffer) {
  try {
    const wrapper = Buffer.concat([Buffer.from([0x3a]), varint(bytes.length), bytes]);
    return decodeMessage("SegData", wrapper).capabilities;
  } catch (err) {
    return refuse(400, (err as Error).message);
  }
}

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}

/** ethcommon.BytesToAddress(...).Hex(): checksummed, the last 20 bytes. */
function addressOf(bytes: Buffer | undefined): string {
  const b = Buffer.concat([Buffer.alloc(20), bytes ?? Buffer.alloc(0)]).subarray(-20);
  return checksum(b);
}

function checksum(b: Buffer): string {
  return getAddress(`0x${b.toString("hex")}`);
}

/** eth.FormatUnits(v, "ETH"): as go-livepeer prints a face value ("0.5 ETH"). */
function formatEth(wei: bigint): string {
  return `${floatString(rational(wei, 10n ** 18n), 18).replace(/\.?0+$/, "")} ETH`;
}
