// An orchestrator's live AI on its service port, as server/ai_http.go startAIServer registers it
// when live runners are on (-useLiveRunners, -liveRunnerConfig):
// - the trickle server under /ai/trickle/ (trickle-server.ts);
// - the runner endpoints POST /runners/heartbeat, /runners/{id}/unregister and GET /discovery
//   (live-runners.ts);
// - POST /live-video-to-video (StartLiveVideoToVideo): capacity first (503 "insufficient
//   capacity"), then the payment and segment credentials (402 / 403 as verifySegCreds), the four
//   channels <mid>, <mid>-out, <mid>-control, <mid>-events made, the runner told to start
//   (POST {runner_url}/live-video-to-video with the channels' runner-facing URLs, as the node asks
//   an ai-runner), and the client answered {manifest_id, publish_url, subscribe_url, control_url,
//   events_url}; the session ends when its input channel closes;
// - POST /payment (segment_rpc.go Payment): off chain nothing to account; a PaymentResult with the
//   orchestrator's info and the sender's own auth token.
// Simulated difference (said at start): the node serves /live-video-to-video from its -aiModels
// live-video-to-video runners (ai-runner containers) and advertises them in GetOrchestrator; the
// simulator serves and advertises it from ready live runners whose app is
// live-video-to-video/<model_id> (capacity = the runners' capacities), which speak the same
// ai-runner live API.
import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { encodeMessage } from "../../node/wire/messages.ts";
import type { AuthTokens } from "../auth-tokens.ts";
import type { SimulatedEthClient } from "../chain-client.ts";
import { clogMessage, goDuration, type LogContext } from "../clog.ts";
import type { GlogLevel } from "../glog.ts";
import { type Handler, sendJson, sendText } from "../http-server.ts";
import type { NodeModel } from "../node-model.ts";
import { type InfoSource, orchestratorInfoMessage } from "../orchestrator-info-message.ts";
import { clientIp, readBody } from "../orchestrator-routes.ts";
import { durationMs } from "../scenario.ts";
import { decodePayment, decodeSegData, PAYMENT_HEADER, SEGMENT_HEADER } from "../segment-protocol.ts";
import type { SimulatorState } from "../state.ts";
import { LiveRunnerRegistry, RunnerError } from "./live-runners.ts";
import { LiveSessionPayments, paymentSender } from "./live-session-payment.ts";
import { TRICKLE_PATH, TrickleServer } from "./trickle-server.ts";

export const LIVE_PIPELINE = "live-video-to-video";
/** core.Capability_LiveVideoToVideo. */
export const LIVE_CAPABILITY = 35;
const CAP_NAME = "Live video to video";

export class LiveStartError extends Error {}

type Log = (level: GlogLevel, where: string, message: string) => void;

export interface LiveTimings {
  heartbeatTtlMs?: number;
  healthIntervalMs?: number;
  trickleIdleTimeoutMs?: number;
}

export interface OrchestratorLiveOptions {
  node: NodeModel;
  state: SimulatorState;
  info: InfoSource;
  tokens: AuthTokens;
  log: Log;
  /** Raw lines (slog's format) for the registry and the trickle server. */
  sink: (line: string) => void;
  cwd: string;
  timings?: LiveTimings;
  /** On chain: the node's chain client (tickets are received and sessions charged). */
  eth?: SimulatedEthClient;
}

/** starter.go defaultLivePaymentInterval. */
const LIVE_PAYMENT_INTERVAL_MS = 5_000;

/** -orchSecret: a value, or the path of a file holding it (common.ReadFromFile). */
function secretOf(value: string | undefined, cwd: string): string {
  if (!value) return "";
  try {
    const path = value.startsWith("/") ? value : `${cwd}/${value}`;
    if (statSync(path).isFile()) return readFileSync(path, "utf8").trim();
  } catch {
    // not a file: the value itself
  }
  return value;
}

export class OrchestratorLive {
  readonly trickle: TrickleServer;
  readonly registry: LiveRunnerRegistry;
  /** On chain only: the tickets received and the sessions' balances. */
  readonly payments: LiveSessionPayments | undefined;

  private readonly o: OrchestratorLiveOptions;

  private constructor(o: OrchestratorLiveOptions) {
    this.o = o;
    const flags = o.node.flags;
    this.payments =
      o.eth && o.info.tickets
        ? new LiveSessionPayments({
            eth: o.eth,
            tickets: o.info.tickets,
            recipient: o.info.address,
            ev: /^\d+$/.test(flags.ticketEV ?? "") ? BigInt(flags.ticketEV!) : 8_000_000_000n,
            intervalMs: durationMs(flags.livePaymentInterval ?? "") ?? LIVE_PAYMENT_INTERVAL_MS,
          })
        : undefined;
    this.trickle = new TrickleServer({
      log: o.sink,
      ...(o.timings?.trickleIdleTimeoutMs ? { idleTimeoutMs: o.timings.trickleIdleTimeoutMs } : {}),
    });
    const serviceUri = () => (o.state.serviceUri ?? "").replace(/\/$/, "");
    this.registry = new LiveRunnerRegistry({
      serviceUri,
      runnerUri: () => (flags.liveRunnerAddr || serviceUri()).replace(/\/$/, ""),
      secret: secretOf(flags.orchSecret, o.cwd),
      offchain: o.node.network === "offchain",
      trickle: this.trickle,
      log: o.sink,
      timings: {
        ...(o.timings?.heartbeatTtlMs ? { heartbeatTtlMs: o.timings.heartbeatTtlMs } : {}),
        ...(o.timings?.healthIntervalMs ? { healthIntervalMs: o.timings.healthIntervalMs } : {}),
      },
    });
  }

  /** undefined when the flags leave live runners off; throws LiveStartError where the node exits. */
  static async start(o: OrchestratorLiveOptions): Promise<OrchestratorLive | undefined> {
    const flags = o.node.flags;
    const addrProblem = liveRunnerAddrProblem(flags.liveRunnerAddr);
    if (addrProblem) {
      o.log("F", "starter.go:1900", `invalid -liveRunnerAddr: ${addrProblem}`);
      throw new LiveStartError(`invalid -liveRunnerAddr: ${addrProblem}`);
    }
    const config = flags.liveRunnerConfig ?? "";
    if (!flags.useLiveRunners && !config) return undefined;
    const secret = secretOf(flags.orchSecret, o.cwd);
    if (!secret && !config) {
      o.log("F", "starter.go:2036", "running with -useLiveRunners requires -orchSecret");
      throw new LiveStartError("running with -useLiveRunners requires -orchSecret");
    }
    const live = new OrchestratorLive(o);
    if (!secret)
      o.log(
        "W",
        "starter.go:2049",
        "No -orchSecret configured; dynamic LiveRunner heartbeat registration is disabled",
      );
    if (config) {
      let json: string;
      try {
        json = readFileSync(config.startsWith("/") ? config : `${o.cwd}/${config}`, "utf8");
      } catch (err) {
        live.stop();
        const message = `error reading -liveRunnerConfig: ${(err as Error).message}`;
        o.log("F", "starter.go:2054", message);
        throw new LiveStartError(message);
      }
      try {
        const runners = await live.registry.registerStatic(json);
        o.log("I", "starter.go:2060", `Registered ${runners.length} static live runners from ${config}`);
      } catch (err) {
        live.stop();
        const message = `error registering -liveRunnerConfig: ${(err as Error).message}`;
        o.log("F", "starter.go:2058", message);
        throw new LiveStartError(message);
      }
    }
    o.log(
      "I",
      "simulator.go:40",
      `Simulated: ${LIVE_PIPELINE} is served by live runners whose app is ${LIVE_PIPELINE}/<model_id> and advertised with their capacity (the node serves it from -aiModels ${LIVE_PIPELINE} runners)`,
    );
    return live;
  }

  stop(): void {
    this.registry.stop();
    this.trickle.stop();
  }

  /** GetOrchestrator's live models: app -> capacity, in use, version. */
  liveModels(): { modelId: string; capacity: number; inUse: number; version: string }[] {
    return [...this.registry.apps()]
      .filter(([app]) => app.startsWith(`${LIVE_PIPELINE}/`))
      .map(([app, a]) => ({
        modelId: app.slice(LIVE_PIPELINE.length + 1),
        capacity: a.capacity,
        inUse: a.inUse,
        version: a.version,
      }));
  }

  extendHttpRoutes(routes: Record<string, Handler>): void {
    routes[TRICKLE_PATH] = this.trickle.handler;
    routes["/runners/"] = (req, res, url) => this.runnerRoute(req, res, url);
    routes["/discovery"] = (req, res) => {
      req.resume();
      sendJsonArray(res, [{ address: this.o.state.serviceUri ?? "", runners: this.registry.discovery() }]);
    };
    routes["/apps/"] = (req, res, url) => this.appsRoute(req, res, url);
    routes["/live-video-to-video"] = (req, res) => this.startLiveVideo(req, res);
    routes["/payment"] = (req, res) => this.payment(req, res);
  }

  private respondWithError(res: ServerResponse, message: string, status: number): void {
    this.o.log("E", "handlers.go:1750", `HTTP Response Error statusCode=${status} err=${message}`);
    sendText(res, status, message);
  }

  private async runnerRoute(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const parts = url.pathname.split("/").filter(Boolean); // runners, heartbeat | {id}, unregister
    const auth = (req.headers.authorization as string | undefined) ?? "";
    const body = await readBody(req, 1 << 20);
    if (req.method !== "POST") return sendText(res, 405, "Method Not Allowed");
    try {
      if (parts.length === 2 && parts[1] === "heartbeat") {
        let json: unknown;
        try {
          json = JSON.parse(body.toString("utf8"));
        } catch (err) {
          return this.respondWithError(res, (err as Error).message, 400);
        }
        return sendJson(res, this.registry.heartbeat(json, auth));
      }
      if (parts.length === 3 && parts[2] === "unregister") {
        this.registry.unregister(decodeURIComponent(parts[1]!), auth);
        res.writeHead(204);
        return void res.end();
      }
      return sendText(res, 404, "404 page not found");
    } catch (err) {
      if (err instanceof RunnerError) return this.respondWithError(res, err.message, err.status);
      throw err;
    }
  }

  /** POST /apps/{id}/session and /apps/{id}/session/{sid}/stop (off chain: no payment challenge). */
  private async appsRoute(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    req.resume();
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent); // apps, id, session, ...
    const [, runnerId = "", session, sessionId, action] = parts;
    if (req.method !== "POST" || session !== "session") return sendText(res, 404, "404 page not found");
    const service = (this.o.state.serviceUri ?? "").replace(/\/$/, "");
    try {
      if (parts.length === 3) {
        const runner = this.registry.runner(runnerId);
        if ((runner.request.mode ?? "persistent") !== "persistent")
          return this.respondWithError(res, "only persistent runners have sessions", 400);
        const id = this.registry.reserveSession(runnerId);
        const base = `${service}/apps/${encodeURIComponent(runnerId)}/session/${id}`;
        return sendJson(res, { session_id: id, app_url: `${base}/app`, control_url: base });
      }
      if (parts.length === 5 && action === "stop" && sessionId) {
        this.registry.releaseSession(runnerId, sessionId);
        res.writeHead(204);
        return void res.end();
      }
      return sendText(res, 404, "404 page not found");
    } catch (err) {
      if (err instanceof RunnerError) return this.respondWithError(res, err.message, err.status);
      throw err;
    }
  }

  private async startLiveVideo(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const mid = randomBytes(4).toString("hex"); // core.RandomManifestID
    let body: Record<string, unknown>;
    try {
      body = JSON.parse((await readBody(req, 1 << 20)).toString("utf8")) as Record<string, unknown>;
    } catch (err) {
      return this.respondWithError(res, (err as Error).message, 400);
    }
    const text = (v: unknown) => (typeof v === "string" ? v : "");
    const requestId = text(body.gateway_request_id) || text(req.headers.requestid);
    const streamId = text(body.stream_id) || text(req.headers.streamid);
    const modelId = text(body.model_id);
    const ctx: LogContext = {
      extra: [
        ["clientIP", clientIp(req)],
        ["request_id", requestId],
        ["manifest_id", mid],
        ["stream_id", streamId],
      ],
    };
    const log = (level: GlogLevel, where: string, message: string) =>
      this.o.log(level, where, clogMessage(ctx, message));
    log("I", "ai_http.go:1024", `Received request cap=${CAP_NAME} modelID=${modelId}`);
    const runner = this.registry.reserve(`${LIVE_PIPELINE}/${modelId}`, mid);
    if (!runner) {
      log("E", "ai_http.go:1032", `Insufficient capacity for pipeline=${LIVE_PIPELINE} modelID=${modelId}`);
      return this.respondWithError(res, "insufficient capacity", 503);
    }
    const release = () => this.registry.release(runner.runnerId, mid);
    const payment = decodePayment(req.headers[PAYMENT_HEADER.toLowerCase()] as string | undefined);
    if ("error" in payment) {
      release();
      return this.respondWithError(res, payment.error, 402);
    }
    const seg = decodeSegData(req.headers[SEGMENT_HEADER.toLowerCase()] as string | undefined);
    // On chain the credentials must be signed by the payment's sender (verifySegCreds).
    const sigProblem = "ok" in seg ? this.payments?.segSigProblem(seg.ok, payment.ok) : undefined;
    if (sigProblem) log("E", "segment_rpc.go:421", "Sig check failed");
    const credsError =
      "error" in seg
        ? seg.error
        : sigProblem
          ? sigProblem
          : !seg.ok.authToken
            ? "missing auth token"
            : !this.o.tokens.verify(seg.ok.authToken)
              ? "invalid auth token"
              : Number(seg.ok.authToken.expiration) * 1000 < Date.now()
                ? "expired auth token"
                : undefined;
    if (credsError) {
      release();
      return this.respondWithError(res, credsError, 403);
    }
    // The first payment, credited to this session; a priced one must leave at least the ticket EV.
    const paymentProblem = await this.payments?.take(payment.ok, mid, log, true);
    if (paymentProblem) {
      release();
      return this.respondWithError(res, paymentProblem, 400);
    }
    const channels = [mid, `${mid}-out`, `${mid}-control`, `${mid}-events`] as const;
    const mimes = ["video/MP2T", "video/MP2T", "application/json", "application/json"];
    channels.forEach((name, i) => {
      this.trickle.create(name, mimes[i]!);
    });
    let closed = false;
    const closeSession = () => {
      if (closed) return;
      closed = true;
      this.trickle.off("closed", onClosed);
      this.trickle.off("segment", onSegment);
      for (const name of channels) this.trickle.close(name);
      release();
      if (charger) {
        charger.stop();
        log("I", "live_payment_processor.go:66", "Done processing payments for session");
      }
    };
    const onClosed = (name: string) => {
      if (name !== mid) return;
      log("I", "ai_http.go:1108", "Error getting local trickle segment err=stream not found");
      closeSession();
    };
    // The session is charged as its input arrives (on chain, when the first payment named a price).
    const charger = this.payments?.charger(payment.ok, mid, log, closeSession);
    const onSegment = (name: string) => {
      if (name === mid) charger?.process();
    };
    this.trickle.on("closed", onClosed);
    if (charger) this.trickle.on("segment", onSegment);
    else
      log(
        "W",
        "ai_http.go:1100",
        `No price info found for model ${modelId}, Orchestrator will not charge for video processing`,
      );

    const service = (this.o.state.serviceUri ?? "").replace(/\/$/, "");
    const runnerBase = (this.o.node.flags.liveRunnerAddr || service).replace(/\/$/, "");
    const publicUrl = (name: string) => `${service}${TRICKLE_PATH}${name}`;
    const internalUrl = (name: string) => `${runnerBase}${TRICKLE_PATH}${name}`;
    try {
      const answer = await fetch(`${runner.request.runner_url.replace(/\/$/, "")}/${LIVE_PIPELINE}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", requestID: requestId, streamID: streamId },
        body: JSON.stringify({
          model_id: modelId,
          subscribe_url: internalUrl(mid),
          publish_url: internalUrl(`${mid}-out`),
          control_url: internalUrl(`${mid}-control`),
          events_url: internalUrl(`${mid}-events`),
          params: body.params ?? {},
          gateway_request_id: requestId,
          manifest_id: mid,
          stream_id: streamId,
        }),
        signal: AbortSignal.timeout(30_000),
      });
      const detail = await answer.text();
      if (!answer.ok)
        throw new Error(`${LIVE_PIPELINE} container returned ${answer.status}: ${detail.trim()}`);
    } catch (err) {
      closeSession();
      return this.respondWithError(res, (err as Error).message, 500);
    }
    log(
      "I",
      "ai_http.go:1169",
      `Processed request cap=${CAP_NAME} modelID=${modelId} took=${goDuration(Date.now() - started)}`,
    );
    sendJson(res, {
      publish_url: publicUrl(mid),
      subscribe_url: publicUrl(`${mid}-out`),
      control_url: publicUrl(`${mid}-control`),
      events_url: publicUrl(`${mid}-events`),
      manifest_id: mid,
    });
  }

  private async payment(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume();
    const ctx: { standard?: LogContext["standard"]; extra: [string, string][] } = {
      extra: [["clientIP", clientIp(req)]],
    };
    const payment = decodePayment(req.headers[PAYMENT_HEADER.toLowerCase()] as string | undefined);
    if ("error" in payment) {
      this.o.log("E", "segment_rpc.go:293", clogMessage(ctx, "Could not parse payment"));
      return sendText(res, 402, payment.error);
    }
    const sender = paymentSender(payment.ok);
    if (this.payments) ctx.extra = [...(ctx.extra ?? []), ["sender", sender]];
    const seg = decodeSegData(req.headers[SEGMENT_HEADER.toLowerCase()] as string | undefined);
    const token = "ok" in seg ? seg.ok.authToken : undefined;
    if ("ok" in seg) {
      ctx.standard = { manifestID: seg.ok.manifestId.toString("utf8") };
    }
    const sigProblem = "ok" in seg ? this.payments?.segSigProblem(seg.ok, payment.ok) : undefined;
    if (sigProblem) this.o.log("E", "segment_rpc.go:421", clogMessage(ctx, "Sig check failed"));
    const err =
      "error" in seg
        ? seg.error
        : sigProblem
          ? sigProblem
          : !token
            ? "missing auth token"
            : !this.o.tokens.verify(token)
              ? "invalid auth token"
              : undefined;
    if (err) {
      this.o.log("E", "segment_rpc.go:305", clogMessage(ctx, `Could not verify segment creds err="${err}"`));
      return sendText(res, 403, err);
    }
    if (token) ctx.standard = { ...ctx.standard, orchSessionID: token.sessionId };
    const senderBytes = payment.ok.sender.length === 20 ? payment.ok.sender : Buffer.alloc(0);
    const info = await orchestratorInfoMessage(this.o.info, senderBytes, undefined);
    if (this.payments && "ok" in seg) {
      const manifestId = seg.ok.manifestId.toString("utf8");
      const problem = await this.payments.take(
        payment.ok,
        manifestId,
        (level, where, message) => this.o.log(level, where, clogMessage(ctx, message)),
        false,
      );
      if (problem) {
        this.o.log("E", "segment_rpc.go:887", clogMessage(ctx, `error processing payment: ${problem}`));
        return sendText(res, 400, problem);
      }
      this.o.log(
        "I",
        "segment_rpc.go:897",
        clogMessage(
          ctx,
          `Payment processed, current balance=${this.payments.balanceText(payment.ok, manifestId)}`,
        ),
      );
    }
    // net.PaymentResult is {OrchestratorInfo info = 16}: the bytes of a TranscodeResult holding only
    // its info (field 16 as well) are the same message.
    res.writeHead(200);
    res.end(encodeMessage("TranscodeResult", { info: { ...info, ...(token ? { authToken: token } : {}) } }));
  }
}

/** starter.go parseLiveRunnerAddr: an absolute http(s) URL. */
function liveRunnerAddrProblem(addr: string | undefined): string | undefined {
  if (!addr) return undefined;
  if (!addr.startsWith("/") && !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(addr))
    return `parse "${addr}": invalid URI for request`;
  let u: URL;
  try {
    u = new URL(addr);
  } catch {
    return "must be an absolute URL";
  }
  if (!u.host) return "must be an absolute URL";
  if (u.protocol !== "http:" && u.protocol !== "https:") return "scheme must be http or https";
  return undefined;
}

function sendJsonArray(res: ServerResponse, body: unknown[]): void {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}
