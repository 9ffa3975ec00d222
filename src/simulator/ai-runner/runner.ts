// A stand-in for livepeer/ai-runner (one pipeline, one model per process, as the real container):
// the runner's HTTP API for /health, /version, /hardware/info, /hardware/stats and
// /text-to-image (a solid-colour PNG per image as a data URL), its bearer token check
// (AUTH_TOKEN), a cold start during which nothing listens (the real runner loads the model before
// uvicorn binds its port), and CUDA running out of memory on demand (after N requests or by the
// control endpoint), with the runner's log lines and error answers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { colourOfSeed, solidPng } from "./png.ts";
import { cudaOutOfMemoryText, type PyLevel, runnerLogLine, uvicornLine } from "./runner-log.ts";

export const SIMULATED_RUNNER_VERSION = "0.0.0-simulated";
const GIB = 1024 ** 3;

export interface AiRunnerOptions {
  /** PIPELINE of the real image, e.g. text-to-image. */
  pipeline: string;
  /** MODEL_ID of the real image, e.g. stabilityai/sd-turbo. */
  modelId: string;
  /** Address to bind (default 127.0.0.1) and port (default 8000, the runner image's; 0 = any). */
  host?: string;
  port?: number;
  /** AUTH_TOKEN of the real image: when set, pipeline requests need `Authorization: Bearer <token>`. */
  token?: string;
  /** Model loading time before the port is bound (the spec: 30 to 120 s; default 0). */
  coldStartMs?: number;
  /** Time each image takes (default 0). */
  inferenceMs?: number;
  gpus?: number;
  gpuName?: string;
  /** Bytes of memory per GPU (default 24 GiB). */
  gpuMemoryTotal?: number;
  /** Fraction of GPU memory in use once the model is loaded (default 0.4). */
  gpuMemoryUsed?: number;
  /** After this many images, every request runs out of GPU memory (default: never). */
  oomAfter?: number;
  version?: string;
  /** Where log lines go (default: standard error). */
  log?: (line: string) => void;
}

export const RunnerActionSchema = z.union([
  z.strictObject({ oom: z.boolean() }),
  z.strictObject({ gpuMemoryUsed: z.number().min(0).max(1) }),
  z.strictObject({ log: z.union([z.string(), z.array(z.string())]) }),
]);
export type RunnerAction = z.infer<typeof RunnerActionSchema>;

export interface AiRunnerSnapshot {
  pipeline: string;
  modelId: string;
  loaded: boolean;
  images: number;
  outOfMemory: boolean;
  gpuMemoryUsed: number;
}

export interface AiRunnerSimulator {
  /** Resolves with the runner's URL once the model is loaded and the port is bound. */
  listening: Promise<string>;
  apply(action: RunnerAction): void;
  snapshot(): AiRunnerSnapshot;
  stop(): Promise<void>;
}

const TextToImageSchema = z.looseObject({
  prompt: z.string(),
  model_id: z.string().optional(),
  height: z.int().positive().max(4096).optional(),
  width: z.int().positive().max(4096).optional(),
  seed: z.int().optional(),
  num_images_per_prompt: z.int().positive().max(16).optional(),
});

/** text-to-image -> TextToImage (the runner's log prefix for pipeline errors). */
function pipelineClass(pipeline: string): string {
  return pipeline
    .split("-")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
}

export function startAiRunnerSimulator(options: AiRunnerOptions): AiRunnerSimulator {
  const sink = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const py = (level: PyLevel, location: string, message: string) =>
    sink(runnerLogLine(level, location, message));
  const version = options.version ?? SIMULATED_RUNNER_VERSION;
  const memoryTotal = options.gpuMemoryTotal ?? 24 * GIB;
  const gpuCount = options.gpus ?? 1;
  const gpuName = options.gpuName ?? "Simulated GPU";
  const state = {
    loaded: false,
    images: 0,
    outOfMemory: false,
    gpuMemoryUsed: options.gpuMemoryUsed ?? 0.4,
  };
  const gpuIds = Array.from({ length: gpuCount }, (_, i) => i);
  const uuid = (i: number) => `GPU-00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;

  const hardware = (kind: "info" | "stats") => ({
    pipeline: options.pipeline,
    model_id: options.modelId,
    [kind === "info" ? "gpu_info" : "gpu_stats"]: Object.fromEntries(
      gpuIds.map((i) => {
        const free = Math.round(memoryTotal * (1 - state.gpuMemoryUsed));
        const base = { id: uuid(i), name: gpuName, memory_total: memoryTotal, memory_free: free };
        return [
          String(i),
          kind === "info"
            ? { ...base, major: 8, minor: 6 }
            : {
                ...base,
                utilization_compute: state.images > 0 ? 35 : 0,
                utilization_memory: Math.round(state.gpuMemoryUsed * 100),
              },
        ];
      }),
    ),
  });

  const textToImage = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readAll(req);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return json(res, 422, {
        detail: [{ type: "json_invalid", loc: ["body", 0], msg: "JSON decode error", input: {} }],
      });
    }
    const parsed = TextToImageSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const missing = issue.code === "invalid_type" && issue.input === undefined;
      return json(res, 422, {
        detail: [
          {
            type: missing ? "missing" : "value_error",
            loc: ["body", ...issue.path.map(String)],
            msg: missing ? "Field required" : issue.message,
            input: body,
          },
        ],
      });
    }
    const params = parsed.data;
    if (!params.prompt) return json(res, 400, httpError("Prompt must be provided."));
    if (options.token) {
      const auth = req.headers.authorization ?? "";
      const m = /^Bearer\s+(.+)$/i.exec(auth);
      if (!m || m[1] !== options.token) {
        res.setHeader("WWW-Authenticate", "Bearer");
        return json(res, 401, httpError("Invalid bearer token."));
      }
    }
    if (params.model_id && params.model_id !== options.modelId) {
      return json(
        res,
        400,
        httpError(`pipeline configured with ${options.modelId} but called with ${params.model_id}.`),
      );
    }
    const count = params.num_images_per_prompt ?? 1;
    const seed = params.seed ?? Math.floor(Math.random() * 2 ** 32);
    const images: { url: string; seed: number; nsfw: boolean }[] = [];
    for (let i = 0; i < count; i++) {
      if (options.inferenceMs) await new Promise((r) => setTimeout(r, options.inferenceMs));
      if (state.outOfMemory || (options.oomAfter !== undefined && state.images >= options.oomAfter)) {
        state.outOfMemory = true;
        state.gpuMemoryUsed = Math.max(state.gpuMemoryUsed, 0.99);
        const free = Math.round(memoryTotal * (1 - state.gpuMemoryUsed));
        py(
          "ERROR",
          "text_to_image.py:207:text_to_image",
          `${pipelineClass(options.pipeline)} pipeline error: ${cudaOutOfMemoryText({ index: 0, totalBytes: memoryTotal, freeBytes: free })}`,
        );
        return json(res, 500, httpError("Out of memory error. Try reducing output image resolution."));
      }
      const png = solidPng(params.width ?? 1024, params.height ?? 576, colourOfSeed(seed + i));
      images.push({ url: `data:image/png;base64,${png.toString("base64")}`, seed: seed + i, nsfw: false });
      state.images++;
    }
    json(res, 200, { images });
  };

  const routes: Record<string, Record<string, (req: IncomingMessage, res: ServerResponse) => unknown>> = {
    "/health": { GET: (_q, res) => json(res, 200, { status: "OK" }) },
    "/version": {
      GET: (_q, res) => json(res, 200, { pipeline: options.pipeline, model_id: options.modelId, version }),
    },
    "/hardware/info": { GET: (_q, res) => json(res, 200, hardware("info")) },
    "/hardware/stats": { GET: (_q, res) => json(res, 200, hardware("stats")) },
    [`/${options.pipeline}`]: {
      POST:
        options.pipeline === "text-to-image"
          ? textToImage
          : (_q, res) =>
              json(
                res,
                500,
                httpError(
                  `Simulated: the simulated runner answers only text-to-image, not ${options.pipeline}`,
                ),
              ),
    },
    "/__sim/state": { GET: (_q, res) => json(res, 200, { ...snapshot(), Simulated: true }) },
    "/__sim/actions": {
      POST: async (req, res) => {
        let actions: RunnerAction[];
        try {
          const body = JSON.parse((await readAll(req)).toString("utf8")) as unknown;
          actions = z.array(RunnerActionSchema).parse(Array.isArray(body) ? body : [body]);
        } catch (err) {
          return json(res, 400, {
            error: `expected a JSON action or list of actions ({"oom": true}, {"gpuMemoryUsed": 0.9}, {"log": "..."}): ${(err as Error).message.slice(0, 300)}`,
          });
        }
        for (const a of actions) apply(a);
        json(res, 200, { ...snapshot(), Simulated: true });
      },
    },
  };

  const server: Server = createServer((req, res) => {
    // The runner's answers are ai-runner's bodies exactly; this header is their only mark.
    res.setHeader("X-Livepeer-Simulated", "true");
    const path = new URL(req.url ?? "/", "http://runner").pathname.replace(/(.)\/$/, "$1");
    const route = routes[path];
    const handler = route?.[req.method ?? "GET"];
    res.on("finish", () => {
      if (path.startsWith("/__sim/")) return;
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
      if (!res.headersSent) json(res, 500, httpError("Internal Server Error"));
      else res.end();
    });
  });

  const snapshot = (): AiRunnerSnapshot => ({
    pipeline: options.pipeline,
    modelId: options.modelId,
    loaded: state.loaded,
    images: state.images,
    outOfMemory: state.outOfMemory,
    gpuMemoryUsed: state.gpuMemoryUsed,
  });
  const apply = (action: RunnerAction) => {
    if ("oom" in action) {
      state.outOfMemory = action.oom;
      if (!action.oom) state.gpuMemoryUsed = Math.min(state.gpuMemoryUsed, options.gpuMemoryUsed ?? 0.4);
    } else if ("gpuMemoryUsed" in action) state.gpuMemoryUsed = action.gpuMemoryUsed;
    else for (const line of typeof action.log === "string" ? [action.log] : action.log) sink(line);
  };

  py("INFO", "app.py:105:create_app", `Runner version: ${version}`);
  py(
    "INFO",
    "simulator.py:1:load_pipeline",
    `Simulated: loading ${options.pipeline} model ${options.modelId} (${Math.round((options.coldStartMs ?? 0) / 1000)} s cold start; the port opens when it is loaded, as uvicorn binds after the model loads)`,
  );
  let loadTimer: NodeJS.Timeout | undefined;
  let rejectListening: (err: Error) => void = () => {};
  const listening = new Promise<string>((resolve, reject) => {
    rejectListening = reject;
    loadTimer = setTimeout(() => {
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
        state.loaded = true;
        const addr = server.address() as AddressInfo;
        const hostPort =
          addr.family === "IPv6" ? `[${addr.address}]:${addr.port}` : `${addr.address}:${addr.port}`;
        sink(uvicornLine("INFO", `Started server process [${process.pid}]`));
        sink(uvicornLine("INFO", "Waiting for application startup."));
        sink(uvicornLine("INFO", "Application startup complete."));
        sink(uvicornLine("INFO", `Uvicorn running on http://${hostPort} (Press CTRL+C to quit)`));
        resolve(`http://${hostPort}`);
      });
    }, options.coldStartMs ?? 0);
  });
  listening.catch(() => {}); // the caller awaits it; an unawaited rejection must not crash the process

  return {
    listening,
    apply,
    snapshot,
    async stop() {
      clearTimeout(loadTimer);
      rejectListening(new Error("the runner was stopped before its model loaded"));
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      sink(uvicornLine("INFO", "Shutting down"));
    },
  };
}

function httpError(msg: string) {
  return { detail: { msg } };
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
