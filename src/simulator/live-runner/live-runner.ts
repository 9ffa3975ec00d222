// A live runner stand-in: livepeer/ai-runner's live-video-to-video app with a pass-through
// pipeline (as its "noop" live pipeline: every input segment comes back unchanged), registered
// with its orchestrator the way go-livepeer 0.9 takes live runners:
// - dynamic (an orchestrator URL and -orchSecret given): POST /runners/heartbeat with the secret,
//   then heartbeats with the returned heartbeat_secret every heartbeat_interval; a 401/404 answer
//   re-registers; POST /runners/{id}/unregister on stop (the official SDK's LiveRunnerRegistration,
//   and its log lines);
// - static (no orchestrator URL): nothing is sent; the orchestrator polls GET /health (its
//   -liveRunnerConfig entry's health_url).
// HTTP API (ai-runner runner/app/routes): GET /health {"status": "IDLE"|"OK"} ("ERROR"-free while
// healthy; after a crash 500 {"detail":{"msg":"Failed to retrieve pipeline status."}}), GET
// /version, POST /live-video-to-video {subscribe_url, publish_url, control_url, events_url,
// model_id, params, gateway_request_id, manifest_id, stream_id}: 401 "Invalid bearer token." with
// AUTH_TOKEN, 400 "pipeline configured with X but called with Y.", else the stream starts (the
// runner reads each input segment from subscribe_url and publishes it to publish_url, seq 0, 1, ...)
// and it answers {"publish_url":"","subscribe_url":"","control_url":""}. One stream per slot of
// `capacity` (the real runner has one and stops the previous stream for a new one, which this does
// when every slot is taken). The port opens after the warm-up (the real runner binds after loading).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type PyLevel, uvicornLine } from "../ai-runner/runner-log.ts";
import { publishSegment, subscribeSegments, trickleRequest } from "../live/trickle-client.ts";

export const LIVE_PIPELINE = "live-video-to-video";
const DEFAULT_HEARTBEAT_MS = 5_000;

export interface LiveRunnerOptions {
  /** PIPELINE (live-video-to-video) and MODEL_ID (the live pipeline, e.g. noop): the app is pipeline/model. */
  pipeline: string;
  modelId: string;
  host?: string;
  port?: number;
  /** AUTH_TOKEN: the bearer token /live-video-to-video wants. */
  token?: string;
  /** Dynamic registration: the orchestrator's runner-facing URL and its -orchSecret. */
  orchUrl?: string;
  orchSecret?: string;
  /** The URL the orchestrator reaches this runner at (default http://<bound address>). */
  runnerUrl?: string;
  runnerId?: string;
  capacity?: number;
  version?: string;
  gpuName?: string;
  /** USD per unit (hour, 720p or fixed), as the runner SDK registers it. */
  price?: string;
  priceUnit?: string;
  warmUpMs?: number;
  /** Overrides the orchestrator's heartbeat_interval. */
  heartbeatIntervalMs?: number;
  /**
   * Where a session's trickle URL (subscribe, publish, control, events) is dialled: the pod
   * network's DNS stand-in (the node names itself by its pod's DNS name). Default: as given.
   */
  routeUrl?: (url: string) => Promise<string>;
  log?: (line: string) => void;
}

export type LiveRunnerAction = { fail: boolean } | { log: string | string[] };

export interface LiveRunnerSnapshot {
  app: string;
  registered: boolean;
  runnerId?: string;
  failed: boolean;
  streams: { manifestId: string; segmentsIn: number; segmentsOut: number }[];
  segmentsPassed: number;
}

export interface LiveRunnerSimulator {
  listening: Promise<string>;
  /** Resolves with the runner id once the orchestrator took the first heartbeat (dynamic only). */
  registered: Promise<string>;
  apply(action: LiveRunnerAction): void;
  snapshot(): LiveRunnerSnapshot;
  stop(): Promise<void>;
}

interface Stream {
  manifestId: string;
  abort: AbortController;
  segmentsIn: number;
  segmentsOut: number;
  done: Promise<void>;
}

function timestamp(now = new Date()): string {
  return now.toISOString().slice(0, 19).replace("T", " ");
}

export function startLiveRunnerSimulator(options: LiveRunnerOptions): LiveRunnerSimulator {
  const sink = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const app = `${options.pipeline}/${options.modelId}`;
  const capacity = options.capacity ?? 1;
  const version = options.version ?? "0.0.0-simulated";
  // runner/live/log.py's format, with the stream's ids where a stream is concerned.
  const py = (
    level: PyLevel,
    location: string,
    message: string,
    ids: Partial<Record<"request" | "manifest" | "stream", string>> = {},
  ) =>
    sink(
      `timestamp=${timestamp()} level=${level} location=${location} gateway_request_id=${ids.request ?? ""} manifest_id=${ids.manifest ?? ""} stream_id=${ids.stream ?? ""} message=${message}`,
    );
  const streams: Stream[] = [];
  const state = { failed: false, segmentsPassed: 0, runnerId: options.runnerId ?? "", registered: false };
  let resolveRegistered!: (id: string) => void;
  const registered = new Promise<string>((resolve) => (resolveRegistered = resolve));
  registered.catch(() => {});

  const startStream = async (p: Record<string, string>, params: unknown): Promise<void> => {
    const ids = {
      request: p.gateway_request_id ?? "",
      manifest: p.manifest_id ?? "",
      stream: p.stream_id ?? "",
    };
    if (streams.length >= capacity) {
      py("INFO", "api.py:98:handle_start_stream", "Stopping previous streamer", ids);
      const previous = streams.shift()!;
      previous.abort.abort();
      await previous.done;
    }
    const abort = new AbortController();
    const stream: Stream = {
      manifestId: ids.manifest,
      abort,
      segmentsIn: 0,
      segmentsOut: 0,
      done: Promise.resolve(),
    };
    streams.push(stream);
    const publishUrl = p.publish_url!;
    let outSeq = 0;
    stream.done = (async () => {
      const end = await subscribeSegments(
        p.subscribe_url!,
        async (_seq, data, mime) => {
          stream.segmentsIn++;
          // The pass-through: the input segment is the output segment.
          const answer = await publishSegment(
            publishUrl,
            outSeq++,
            data,
            mime || "video/MP2T",
            abort.signal,
          ).catch((err: Error) => ({ status: 0, error: err.message }));
          if (answer.status === 200) {
            stream.segmentsOut++;
            state.segmentsPassed++;
          } else {
            py(
              "ERROR",
              "trickle_publisher.py:150:_run_post",
              `Trickle POST failed url=${publishUrl}/${outSeq - 1} status=${answer.status}`,
              ids,
            );
          }
        },
        { start: -1, signal: abort.signal },
      );
      py(
        "INFO",
        "streamer.py:240:run_ingress_loop",
        `Stream ended: input channel ${end === "aborted" ? "stopped" : end}`,
        ids,
      );
      // Closing the output channel ends the subscribers' stream (404 after).
      await trickleRequest(publishUrl, { method: "DELETE" }).catch(() => undefined);
      const i = streams.indexOf(stream);
      if (i >= 0) streams.splice(i, 1);
    })();
    if (p.events_url) {
      // emit_monitoring_event: {"event": ..., "queue_event_type": ...}, one message per segment.
      const event = Buffer.from(
        JSON.stringify({
          event: { type: "runner_receive_stream_request", timestamp: Date.now() },
          queue_event_type: "stream_trace",
        }),
      );
      void publishSegment(p.events_url, -1, event, "application/json").catch(() => undefined);
    }
    if (p.control_url) {
      // The control loop: keepalives ignored, other messages are parameter updates.
      const controlUrl = p.control_url;
      py("INFO", "trickle.py:118:control_loop", `Starting Control subscriber at ${controlUrl}`, ids);
      void subscribeSegments(
        controlUrl,
        (_seq, data) => {
          let message: unknown;
          try {
            message = JSON.parse(data.toString("utf8"));
          } catch {
            py("ERROR", "trickle.py:135:control_loop", "Error in control loop", ids);
            return;
          }
          if (JSON.stringify(message) === '{"keep":"alive"}') return;
          py(
            "INFO",
            "trickle.py:131:control_loop",
            `Received control message with params: ${pyRepr(message)}`,
            ids,
          );
        },
        { start: -1, signal: abort.signal },
      );
    } else {
      py(
        "WARNING",
        "trickle.py:114:control_loop",
        "No control-url provided, inference won't get updates from the control trickle subscription",
        ids,
      );
    }
    py("INFO", "live_video_to_video.py:62:__call__", "Stream started successfully", ids);
    void params;
  };

  const routes: Record<
    string,
    Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void> | void>
  > = {
    "/health": {
      GET: (_req, res) => {
        if (state.failed) {
          py(
            "ERROR",
            "live_video_to_video.py:101:get_health",
            "[HEALTHCHECK] Failed to get status: ConnectionRefusedError: [Errno 111] Connection refused",
          );
          py("ERROR", "health.py:23:health", "[HEALTHCHECK] Error retrieving pipeline status");
          return json(res, 500, { detail: { msg: "Failed to retrieve pipeline status." } });
        }
        json(res, 200, { status: streams.length ? "OK" : "IDLE" });
      },
    },
    "/version": {
      GET: (_req, res) => json(res, 200, { pipeline: options.pipeline, model_id: options.modelId, version }),
    },
    "/live-video-to-video": {
      POST: async (req, res) => {
        const body = await readAll(req);
        if (options.token) {
          const auth = req.headers.authorization ?? "";
          if (auth !== `Bearer ${options.token}`) {
            res.setHeader("WWW-Authenticate", "Bearer");
            return json(res, 401, { detail: { msg: "Invalid bearer token." } });
          }
        }
        let p: Record<string, unknown>;
        try {
          p = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
        } catch {
          return json(res, 422, {
            detail: [{ type: "json_invalid", loc: ["body"], msg: "JSON decode error" }],
          });
        }
        const missing = ["subscribe_url", "publish_url"].filter((k) => typeof p[k] !== "string");
        if (missing.length)
          return json(res, 422, {
            detail: missing.map((k) => ({
              type: "missing",
              loc: ["body", k],
              msg: "Field required",
              input: p,
            })),
          });
        const modelId = typeof p.model_id === "string" ? p.model_id : "";
        if (modelId && modelId !== options.modelId)
          return json(res, 400, {
            detail: { msg: `pipeline configured with ${options.modelId} but called with ${modelId}.` },
          });
        if (state.failed) {
          py(
            "ERROR",
            "live_video_to_video.py:70:__call__",
            "LiveVideoToVideoPipeline error: Pipeline process not running",
          );
          return json(res, 500, { detail: { msg: "live-video-to-video pipeline error." } });
        }
        const text = Object.fromEntries(Object.entries(p).filter(([, v]) => typeof v === "string")) as Record<
          string,
          string
        >;
        if (options.routeUrl) {
          for (const k of ["subscribe_url", "publish_url", "control_url", "events_url"])
            if (text[k]) text[k] = await options.routeUrl(text[k]);
        }
        await startStream(text, p.params);
        json(res, 200, { publish_url: "", subscribe_url: "", control_url: "" });
      },
    },
    "/__sim/state": { GET: (_req, res) => json(res, 200, snapshot()) },
    "/__sim/actions": {
      POST: async (req, res) => {
        try {
          const body = JSON.parse((await readAll(req)).toString("utf8")) as
            | LiveRunnerAction
            | LiveRunnerAction[];
          for (const a of Array.isArray(body) ? body : [body]) apply(a);
          json(res, 200, snapshot());
        } catch (err) {
          json(res, 400, {
            error: `expected {"fail": true|false} or {"log": "line"}: ${(err as Error).message}`,
          });
        }
      },
    },
  };

  const server: Server = createServer((req, res) => {
    res.setHeader("X-Livepeer-Simulated", "true");
    const path = new URL(req.url ?? "/", "http://runner").pathname.replace(/(.)\/$/, "$1");
    const route = routes[path];
    const handler = route?.[req.method ?? "GET"];
    res.on("finish", () => {
      if (path.startsWith("/__sim/") || path === "/health") return;
      const peer = `${req.socket.remoteAddress?.replace(/^::ffff:/, "") ?? ""}:${req.socket.remotePort ?? 0}`;
      sink(
        uvicornLine(
          "INFO",
          `${peer} - "${req.method} ${req.url} HTTP/1.1" ${res.statusCode} ${res.statusMessage}`,
        ),
      );
    });
    if (!route) return json(res, 404, { detail: "Not Found" });
    if (!handler) return json(res, 405, { detail: "Method Not Allowed" });
    Promise.resolve(handler(req, res)).catch((err: unknown) => {
      py("ERROR", "simulator.py:1:handler", `Simulated: ${(err as Error).message}`);
      if (!res.headersSent) json(res, 500, { detail: { msg: "Internal Server Error" } });
      else res.end();
    });
  });

  const snapshot = (): LiveRunnerSnapshot => ({
    app,
    registered: state.registered,
    ...(state.runnerId ? { runnerId: state.runnerId } : {}),
    failed: state.failed,
    streams: streams.map((s) => ({
      manifestId: s.manifestId,
      segmentsIn: s.segmentsIn,
      segmentsOut: s.segmentsOut,
    })),
    segmentsPassed: state.segmentsPassed,
  });
  const apply = (action: LiveRunnerAction) => {
    if ("fail" in action) {
      if (action.fail && !state.failed) {
        py(
          "INFO",
          "live_video_to_video.py:150:monitor_process",
          "infer.py process exited with return_code=1",
        );
        for (const s of streams) s.abort.abort();
      }
      state.failed = action.fail;
    } else for (const line of typeof action.log === "string" ? [action.log] : action.log) sink(line);
  };

  // Registration (dynamic): the runner SDK's heartbeat loop.
  const reg = {
    secret: "",
    intervalMs: options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_MS,
    orch: options.orchUrl?.replace(/\/$/, "") ?? "",
  };
  let heartbeatTimer: NodeJS.Timeout | undefined;
  let stopping = false;
  const payload = (runnerUrl: string) => ({
    runner_url: runnerUrl,
    app,
    mode: "persistent",
    capacity,
    price_info: { price: Number(options.price ?? "0"), currency: "usd", unit: options.priceUnit ?? "hour" },
    session_ids: streams.map((s) => s.manifestId).filter(Boolean),
    ...(state.runnerId ? { runner_id: state.runnerId } : {}),
    version,
    status: state.failed ? "unavailable" : "ready",
    ...(options.gpuName ? { gpu: { name: options.gpuName } } : {}),
  });
  const postHeartbeat = async (runnerUrl: string, auth: string) => {
    const url = `${reg.orch}/runners/heartbeat`;
    const answer = await trickleRequest(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: auth },
      body: Buffer.from(JSON.stringify(payload(runnerUrl))),
    });
    if (answer.status !== 200) {
      const err = new Error(
        `HTTP ${answer.status} from endpoint (url=${url}); body=${JSON.stringify(answer.body.toString("utf8").trim())}`,
      );
      (err as Error & { status?: number }).status = answer.status;
      throw err;
    }
    return JSON.parse(answer.body.toString("utf8")) as Record<string, unknown>;
  };
  const sendHeartbeat = async (runnerUrl: string) => {
    let initial = !reg.secret;
    if (initial)
      py(
        "INFO",
        "live_runner.py:485:_send_heartbeat",
        `Registering live runner with orchestrator ${reg.orch}`,
      );
    let data: Record<string, unknown>;
    try {
      data = await postHeartbeat(runnerUrl, reg.secret || options.orchSecret || "");
    } catch (err) {
      const status = (err as Error & { status?: number }).status;
      if (initial || (status !== 401 && status !== 404)) throw err;
      py(
        "INFO",
        "live_runner.py:494:_send_heartbeat",
        "Live runner heartbeat authorization expired; resetting heartbeat auth",
      );
      reg.secret = "";
      state.runnerId = options.runnerId ?? "";
      initial = true;
      data = await postHeartbeat(runnerUrl, options.orchSecret ?? "");
    }
    if (typeof data.runner_id === "string") state.runnerId = data.runner_id;
    if (typeof data.heartbeat_secret === "string" && data.heartbeat_secret)
      reg.secret = data.heartbeat_secret;
    const interval = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(String(data.heartbeat_interval ?? ""));
    if (interval && options.heartbeatIntervalMs === undefined)
      reg.intervalMs = Number(interval[1]) * (interval[2] === "s" ? 1000 : 1);
    if (initial) {
      const orch =
        typeof data.orchestrator === "string" && data.orchestrator
          ? data.orchestrator.replace(/\/$/, "")
          : reg.orch;
      py(
        "INFO",
        "live_runner.py:515:_send_heartbeat",
        orch !== reg.orch
          ? `Live runner registration using orchestrator ${orch} returned by ${reg.orch}`
          : `Live runner registration using orchestrator ${orch}`,
      );
      reg.orch = orch;
      state.registered = true;
      resolveRegistered(state.runnerId);
    }
  };
  const heartbeatLoop = (runnerUrl: string) => {
    heartbeatTimer = setTimeout(async () => {
      if (stopping) return;
      try {
        await sendHeartbeat(runnerUrl);
      } catch (err) {
        py(
          "WARNING",
          "live_runner.py:476:_heartbeat_loop",
          `Live runner heartbeat failed; retrying on next interval: ${(err as Error).message}`,
        );
      }
      if (!stopping) heartbeatLoop(runnerUrl);
    }, reg.intervalMs);
  };

  py("INFO", "app.py:105:create_app", `Runner version: ${version}`);
  py("INFO", "live_video_to_video.py:118:start_process", "Starting pipeline process");
  py(
    "INFO",
    "simulator.py:1:load_pipeline",
    `Simulated: ${app} pass-through pipeline (each input segment is published back unchanged); ${Math.round((options.warmUpMs ?? 0) / 1000)} s warm-up before the port opens; ${reg.orch ? `dynamic registration with ${reg.orch}` : "static registration (the orchestrator polls /health)"}`,
  );
  let warmTimer: NodeJS.Timeout | undefined;
  let rejectListening: (err: Error) => void = () => {};
  const listening = new Promise<string>((resolve, reject) => {
    rejectListening = reject;
    warmTimer = setTimeout(() => {
      const host = options.host ?? "127.0.0.1";
      const onError = (err: NodeJS.ErrnoException) => {
        sink(
          uvicornLine(
            "ERROR",
            `[Errno ${err.errno ?? 98}] error while attempting to bind on address ('${host}', ${options.port ?? 8000}): ${err.code === "EADDRINUSE" ? "address already in use" : err.message}`,
          ),
        );
        reject(err);
      };
      server.once("error", onError);
      server.listen(options.port ?? 8000, host, () => {
        server.off("error", onError);
        const addr = server.address() as AddressInfo;
        const hostPort =
          addr.family === "IPv6" ? `[${addr.address}]:${addr.port}` : `${addr.address}:${addr.port}`;
        sink(uvicornLine("INFO", `Started server process [${process.pid}]`));
        sink(uvicornLine("INFO", "Waiting for application startup."));
        sink(uvicornLine("INFO", "Application startup complete."));
        sink(uvicornLine("INFO", `Uvicorn running on http://${hostPort} (Press CTRL+C to quit)`));
        const url = `http://${hostPort}`;
        resolve(url);
        if (reg.orch) {
          const runnerUrl = options.runnerUrl ?? url;
          sendHeartbeat(runnerUrl)
            .catch((err: Error) =>
              py(
                "WARNING",
                "live_runner.py:476:_heartbeat_loop",
                `Live runner heartbeat failed; retrying on next interval: ${err.message}`,
              ),
            )
            .finally(() => {
              if (!stopping) heartbeatLoop(runnerUrl);
            });
        }
      });
    }, options.warmUpMs ?? 0);
  });
  listening.catch(() => {});

  return {
    listening,
    registered,
    apply,
    snapshot,
    async stop() {
      stopping = true;
      clearTimeout(warmTimer);
      clearTimeout(heartbeatTimer);
      rejectListening(new Error("the runner was stopped before it warmed up"));
      for (const s of streams) s.abort.abort();
      await Promise.all(streams.map((s) => s.done));
      if (reg.secret && state.runnerId) {
        const url = `${reg.orch}/runners/${encodeURIComponent(state.runnerId)}/unregister`;
        await trickleRequest(url, { method: "POST", headers: { Authorization: reg.secret } }).catch(
          () => undefined,
        );
        state.registered = false;
      }
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      sink(uvicornLine("INFO", "Shutting down"));
    },
  };
}

/** Python's repr of a JSON value (how the runner's log prints a dict). */
export function pyRepr(value: unknown): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (typeof value === "object")
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`)
      .join(", ")}}`;
  return String(value);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
