// The orchestrator's live runner registry (go-livepeer ai/runner/live_runner.go, doc/live-runner.md):
// dynamic runners register and heartbeat (POST /runners/heartbeat: first with -orchSecret, then
// with the heartbeat secret it hands out; a runner without a heartbeat for the TTL, 20 s, is gone
// with its sessions), unregister (POST /runners/{id}/unregister); static runners come from
// -liveRunnerConfig and are healthy while their health_url answers healthy_status_code (polled
// every 5 s, 3 s timeout). Only ready runners (status "" or "ready") are discovered or reserved;
// a runner holds at most `capacity` sessions. Each dynamic runner gets its O2R trickle channel:
// {"keep":"alive"} every 10 s and {"event":"reserved"|"released","session","timestamp"}.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { slogLine } from "../ai/slog.ts";
import { TRICKLE_PATH, type TrickleServer } from "./trickle-server.ts";

export const HEARTBEAT_INTERVAL_MS = 5_000;
export const HEARTBEAT_TTL_MS = 20_000;
export const HEALTH_INTERVAL_MS = 5_000;
const HEALTH_TIMEOUT_MS = 3_000;
const O2R_INTERVAL_MS = 10_000;

/** ai/runner RunnerError: the status and message the node answers with. */
export class RunnerError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
    this.name = "RunnerError";
  }
}

export interface LiveRunnerGpu {
  id?: string;
  name?: string;
  vram_mb?: number;
}

export interface LiveRunnerPriceInfo {
  price: number | string;
  currency?: string;
  unit?: string;
}

/** What a runner registers with (LiveRunnerHeartbeatRequest's JSON). */
export interface HeartbeatRequest {
  runner_id?: string;
  label?: string;
  proxy?: boolean;
  runner_url: string;
  version?: string;
  metadata?: string;
  status?: string;
  mode?: string;
  gpu?: LiveRunnerGpu;
  app: string;
  capacity: number;
  price_info?: LiveRunnerPriceInfo;
  session_ids?: string[];
}

export interface LiveRunner {
  runnerId: string;
  request: HeartbeatRequest;
  static: boolean;
  healthUrl?: string;
  healthyStatusCode?: number;
  heartbeatSecret?: string;
  lastHeartbeat: number;
  sessions: Map<string, { createdAt: number }>;
  o2r?: string;
}

export interface RegistryOptions {
  /** The runner-facing base URL (-liveRunnerAddr, else the service URI). */
  runnerUri: () => string;
  /** The public service URI (discovery URLs). */
  serviceUri: () => string;
  /** -orchSecret's value ("" disables dynamic registration). */
  secret: string;
  offchain: boolean;
  trickle: TrickleServer;
  log: (line: string) => void;
  timings?: { heartbeatTtlMs?: number; healthIntervalMs?: number; o2rIntervalMs?: number };
}

const isReady = (status: string | undefined) => !status || status === "ready";

export class LiveRunnerRegistry {
  private readonly runners = new Map<string, LiveRunner>();
  private readonly ttlMs: number;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly seedKey = randomBytes(32);
  private readonly o: RegistryOptions;

  constructor(o: RegistryOptions) {
    this.o = o;
    this.ttlMs = o.timings?.heartbeatTtlMs ?? HEARTBEAT_TTL_MS;
    const every = (ms: number, f: () => void) => {
      const t = setInterval(f, ms);
      t.unref();
      this.timers.push(t);
    };
    every(o.timings?.healthIntervalMs ?? HEALTH_INTERVAL_MS, () => void this.checkStaticHealth());
    every(Math.max(250, Math.min(this.ttlMs / 4, 5_000)), () => this.removeExpired());
    every(o.timings?.o2rIntervalMs ?? O2R_INTERVAL_MS, () => {
      for (const r of this.runners.values())
        if (r.o2r) o.trickle.write(r.o2r, Buffer.from('{"keep":"alive"}'));
    });
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    for (const r of this.runners.values()) if (r.o2r) this.o.trickle.close(r.o2r);
  }

  heartbeat(body: unknown, auth: string): Record<string, unknown> {
    const req = normalize(body, this.o.offchain);
    const runnerId = req.runner_id?.trim() || `runner_${randomId(5)}`;
    req.runner_id = runnerId;
    const runner = this.runners.get(runnerId);
    // The node's 5 s against its 20 s TTL; a TTL shortened for tests shortens it alike.
    const interval = goDuration(Math.min(HEARTBEAT_INTERVAL_MS, Math.floor(this.ttlMs / 4)));
    const ttl = goDuration(this.ttlMs);
    const orchestrator = this.o.runnerUri();
    if (!runner) {
      if (!this.o.secret) throw new RunnerError(404, "dynamic live runner registration is disabled");
      if (!sameSecret(auth, this.o.secret)) throw new RunnerError(401, "invalid registration authorization");
      const heartbeatSecret = createHmac("sha256", this.seedKey)
        .update(`heartbeat/${runnerId}/${randomId(8)}`)
        .digest("base64url");
      const o2r = `o2r-${randomBytes(16).toString("hex")}`;
      this.o.trickle.create(o2r, "application/json");
      const created: LiveRunner = {
        runnerId,
        request: req,
        static: false,
        heartbeatSecret,
        lastHeartbeat: Date.now(),
        sessions: new Map(),
        o2r,
      };
      this.runners.set(runnerId, created);
      this.o.log(
        slogLine("INFO", "live runner registered", [
          ["runner_id", runnerId],
          ["app", req.app],
          ["runner_url", req.runner_url],
        ]),
      );
      return {
        runner_id: runnerId,
        orchestrator,
        heartbeat_interval: interval,
        heartbeat_ttl: ttl,
        heartbeat_secret: heartbeatSecret,
        o2r: this.channelJson(o2r, "o2r", "application/json"),
        session_ids: [],
      };
    }
    if (Date.now() - runner.lastHeartbeat > this.ttlMs) throw new RunnerError(404, "runner not found");
    if (!runner.heartbeatSecret || !sameSecret(auth, runner.heartbeatSecret))
      throw new RunnerError(401, "invalid heartbeat authorization");
    if (runner.static) throw new RunnerError(400, "static runner cannot heartbeat");
    runner.request = req;
    runner.lastHeartbeat = Date.now();
    return {
      runner_id: runnerId,
      orchestrator,
      heartbeat_interval: interval,
      heartbeat_ttl: ttl,
      session_ids: [...runner.sessions.keys()],
    };
  }

  unregister(runnerId: string, auth: string): void {
    const runner = this.runners.get(runnerId);
    if (!runner || Date.now() - runner.lastHeartbeat > this.ttlMs)
      throw new RunnerError(404, "runner not found");
    if (runner.static)
      throw new RunnerError(400, "static runner cannot unregister with heartbeat credentials");
    if (!runner.heartbeatSecret || !sameSecret(auth, runner.heartbeatSecret))
      throw new RunnerError(401, "invalid authorization");
    this.remove(runner, "unregister");
  }

  /** -liveRunnerConfig's document (or /registerLiveRunners): all or nothing. */
  async registerStatic(json: string): Promise<Record<string, unknown>[]> {
    let doc: { runners?: unknown };
    try {
      doc = JSON.parse(json) as { runners?: unknown };
    } catch (err) {
      throw new RunnerError(400, (err as Error).message);
    }
    const entries = Array.isArray(doc.runners) ? (doc.runners as Record<string, unknown>[]) : [];
    const labels = new Set<string>();
    const parsed = entries.map((e, i) => {
      const label = typeof e.label === "string" ? e.label : "";
      if (!label || label !== label.trim())
        throw new RunnerError(400, `runners[${i}]: label is required and must be trimmed`);
      if (labels.has(label)) throw new RunnerError(400, `runners[${i}]: duplicate label "${label}"`);
      labels.add(label);
      const routing = (e.routing as string | undefined) || "runner-id";
      if (routing !== "runner-id" && routing !== "label")
        throw new RunnerError(400, `runners[${i}]: routing must be "runner-id" or "label"`);
      if (routing === "label" && label.includes("/"))
        throw new RunnerError(400, `runners[${i}]: label cannot contain / when routing is "label"`);
      const code = (e.healthy_status_code as number | undefined) || 200;
      if (!Number.isInteger(code) || code < 100 || code > 599)
        throw new RunnerError(400, `runners[${i}]: healthy_status_code must be a valid HTTP status code`);
      let req: HeartbeatRequest;
      try {
        req = normalize({ ...e, status: "" }, this.o.offchain);
      } catch (err) {
        throw new RunnerError(400, `runners[${i}]: ${(err as Error).message}`);
      }
      const healthUrl = typeof e.health_url === "string" ? e.health_url : "";
      if (!healthUrl) throw new RunnerError(400, `runners[${i}]: health_url is required`);
      let resolved: string;
      try {
        resolved = healthUrl.startsWith("/")
          ? new URL(healthUrl, req.runner_url).toString()
          : new URL(healthUrl).toString();
      } catch {
        throw new RunnerError(400, `runners[${i}]: invalid health_url`);
      }
      return { label, routing, code, req, healthUrl: resolved };
    });
    const results: Record<string, unknown>[] = [];
    for (const p of parsed) {
      const existing = [...this.runners.values()].find((r) => r.static && r.request.label === p.label);
      const runnerId = p.routing === "label" ? p.label : (existing?.runnerId ?? `runner_${randomId(5)}`);
      const healthy = await this.healthy(p.healthUrl, p.code);
      const runner: LiveRunner = {
        runnerId,
        request: { ...p.req, runner_id: runnerId, label: p.label, status: healthy ? "ready" : "unavailable" },
        static: true,
        healthUrl: p.healthUrl,
        healthyStatusCode: p.code,
        lastHeartbeat: Date.now(),
        sessions: existing?.sessions ?? new Map(),
      };
      this.runners.set(runnerId, runner);
      results.push({
        runner_id: runnerId,
        label: p.label,
        app: p.req.app,
        runner_url: p.req.runner_url,
        mode: p.req.mode,
        health_url: p.healthUrl,
        healthy_status_code: p.code,
        healthy,
      });
    }
    return results;
  }

  /** Ready, unexpired runners (static ones never expire). */
  ready(): LiveRunner[] {
    const now = Date.now();
    return [...this.runners.values()].filter(
      (r) => isReady(r.request.status) && (r.static || now - r.lastHeartbeat <= this.ttlMs),
    );
  }

  /** GET /discovery's runners. */
  discovery(): Record<string, unknown>[] {
    const base = this.o.serviceUri();
    return this.ready().map((r) => {
      const q = r.request;
      const persistent = (q.mode ?? "persistent") === "persistent";
      return {
        url: `${base}/apps/${encodeURIComponent(r.runnerId)}/${persistent ? "session" : "app"}`,
        ...(q.gpu ? { gpu: q.gpu } : {}),
        app: q.app,
        ...(q.version ? { version: q.version } : {}),
        ...(q.metadata ? { metadata: q.metadata } : {}),
        mode: q.mode ?? "persistent",
        capacity: q.capacity,
        capacity_used: r.sessions.size,
        capacity_available: Math.max(0, q.capacity - r.sessions.size),
      };
    });
  }

  /** Capacity and use per app, over ready runners. */
  apps(): Map<string, { capacity: number; inUse: number; version: string }> {
    const apps = new Map<string, { capacity: number; inUse: number; version: string }>();
    for (const r of this.ready()) {
      const a = apps.get(r.request.app) ?? { capacity: 0, inUse: 0, version: r.request.version ?? "" };
      a.capacity += r.request.capacity;
      a.inUse += r.sessions.size;
      apps.set(r.request.app, a);
    }
    return apps;
  }

  /** Reserves a session on the ready runner of `app` with the most room: undefined when all are full. */
  reserve(app: string, sessionId: string): LiveRunner | undefined {
    const candidates = this.ready()
      .filter((r) => r.request.app === app && r.sessions.size < r.request.capacity)
      .sort((a, b) => b.request.capacity - b.sessions.size - (a.request.capacity - a.sessions.size));
    const runner = candidates[0];
    if (!runner) return undefined;
    this.hold(runner, sessionId);
    return runner;
  }

  /** A ready, unexpired runner by id (or label route): 404 "runner not found" otherwise. */
  runner(runnerId: string): LiveRunner {
    const runner = this.runners.get(runnerId);
    if (
      !runner ||
      (!runner.static && Date.now() - runner.lastHeartbeat > this.ttlMs) ||
      !isReady(runner.request.status)
    )
      throw new RunnerError(404, "runner not found");
    return runner;
  }

  /** POST /apps/{id}/session: a session on that runner (503 when it is full). */
  reserveSession(runnerId: string): string {
    const runner = this.runner(runnerId);
    if (runner.sessions.size >= runner.request.capacity)
      throw new RunnerError(503, "no capacity available for runner");
    let id = `session_${randomId(5)}`;
    while (runner.sessions.has(id)) id = `session_${randomId(5)}`;
    this.hold(runner, id);
    return id;
  }

  /** POST /apps/{id}/session/{sid}/stop: releasing a session that is not there is no error. */
  releaseSession(runnerId: string, sessionId: string): void {
    const runner = this.runners.get(runnerId);
    if (!runner || (!runner.static && Date.now() - runner.lastHeartbeat > this.ttlMs))
      throw new RunnerError(404, "runner not found");
    this.release(runnerId, sessionId);
  }

  private hold(runner: LiveRunner, sessionId: string): void {
    runner.sessions.set(sessionId, { createdAt: Date.now() });
    this.event(runner, "reserved", sessionId);
    this.o.log(
      slogLine("INFO", "live runner session reserved", [
        ["runner_id", runner.runnerId],
        ["session_id", sessionId],
        ["app", runner.request.app],
      ]),
    );
  }

  release(runnerId: string, sessionId: string): void {
    const runner = this.runners.get(runnerId);
    if (!runner?.sessions.delete(sessionId)) return;
    this.event(runner, "released", sessionId);
  }

  private event(runner: LiveRunner, event: "reserved" | "released", session: string): void {
    if (runner.o2r)
      this.o.trickle.write(
        runner.o2r,
        Buffer.from(JSON.stringify({ event, session, timestamp: new Date().toISOString() })),
      );
  }

  private channelJson(channelName: string, name: string, mimeType: string): Record<string, string> {
    return {
      name,
      channel_name: channelName,
      url: `${this.o.serviceUri()}${TRICKLE_PATH}${channelName}`,
      internal_url: `${this.o.runnerUri()}${TRICKLE_PATH}${channelName}`,
      mime_type: mimeType,
    };
  }

  private remove(runner: LiveRunner, reason: string): void {
    for (const id of [...runner.sessions.keys()]) this.release(runner.runnerId, id);
    this.runners.delete(runner.runnerId);
    if (runner.o2r) this.o.trickle.close(runner.o2r);
    this.o.log(
      slogLine("INFO", "live runner removed", [
        ["runner_id", runner.runnerId],
        ["app", runner.request.app],
        ["reason", reason],
      ]),
    );
  }

  private removeExpired(): void {
    const now = Date.now();
    for (const r of [...this.runners.values()])
      if (!r.static && now - r.lastHeartbeat > this.ttlMs) this.remove(r, "heartbeat expired");
  }

  private async healthy(url: string, code: number): Promise<boolean> {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
      await res.body?.cancel();
      return res.status === code;
    } catch {
      return false;
    }
  }

  private async checkStaticHealth(): Promise<void> {
    for (const r of [...this.runners.values()]) {
      if (!r.static || !r.healthUrl) continue;
      const healthy = await this.healthy(r.healthUrl, r.healthyStatusCode ?? 200);
      const before = r.request.status;
      r.request.status = healthy ? "ready" : "unavailable";
      if (!healthy) for (const id of [...r.sessions.keys()]) this.release(r.runnerId, id);
      if (before !== r.request.status)
        this.o.log(
          slogLine("INFO", "static live runner health changed", [
            ["runner_id", r.runnerId],
            ["app", r.request.app],
            ["status", r.request.status],
            ["health_url", r.healthUrl],
          ]),
        );
    }
  }
}

/** normalizeHeartbeat's checks and defaults (mode persistent, capacity 1 when 0). */
function normalize(body: unknown, offchain: boolean): HeartbeatRequest {
  if (!body || typeof body !== "object") throw new RunnerError(400, "invalid request body");
  const req = { ...(body as HeartbeatRequest) };
  let u: URL | undefined;
  try {
    u = new URL(req.runner_url);
  } catch {
    u = undefined;
  }
  if (!u?.host || (u.protocol !== "http:" && u.protocol !== "https:"))
    throw new RunnerError(400, "invalid runner_url");
  if (typeof req.app !== "string" || !req.app || req.app !== req.app.trim())
    throw new RunnerError(400, "app must be trimmed");
  if ((req.metadata ?? "").length > 1024) throw new RunnerError(400, "metadata must be at most 1024 bytes");
  const status = req.status ?? "";
  if (status !== status.trim().toLowerCase())
    throw new RunnerError(400, "status must be lowercase and trimmed");
  req.mode = req.mode === "single_shot" ? "single-shot" : req.mode || "persistent";
  if (req.mode !== "persistent" && req.mode !== "single-shot")
    throw new RunnerError(400, 'mode must be "persistent" or "single-shot"');
  const capacity = req.capacity ?? 0;
  if (!Number.isInteger(capacity) || capacity < 0) throw new RunnerError(400, "capacity must be >= 0");
  req.capacity = capacity === 0 ? 1 : capacity;
  if (!offchain) {
    const p = req.price_info;
    if (!p || !(Number(p.price) > 0))
      throw new RunnerError(400, "price_info.price must be a positive decimal");
    if ((p.currency ?? "usd").toLowerCase() !== "usd")
      throw new RunnerError(400, "price_info.currency must be usd");
    if (!["hour", "720p", "fixed"].includes(p.unit ?? "hour"))
      throw new RunnerError(400, "price_info.unit must be hour, 720p, or fixed");
  }
  return req;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** base32 (no padding) of n random bytes, lower case, as the node's runner and session ids. */
export function randomId(bytes: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of randomBytes(bytes)) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** Go's time.Duration String for whole seconds or milliseconds ("5s", "20s", "500ms"). */
export function goDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : ms < 1000 ? `${ms}ms` : `${ms / 1000}s`;
}
