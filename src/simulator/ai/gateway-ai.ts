// A gateway's AI jobs on its HTTP port (server/ai_mediaserver.go, ai_process.go processAIRequest):
// the job goes to the first orchestrator of the pool whose GetOrchestrator answer (gRPC over TLS,
// the gateway's kept connections) offers the pipeline's capability with the model (and, when a
// cap is set, a price within it), posted on the same TLS connection; a failure
// moves on to the next one; when none is left the answer is 503 {"error":{"message":"Service
// Unavailable Error"}} ("no orchestrators available" in the log), as the node answers. Images come
// back as the node stores them (its memory object store): /stream/<request id>/<name>.png, served
// by the same HTTP port.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipelineCapability } from "../../node/client/capabilities.ts";
import { compare, rational } from "../../node/pricing/rational.ts";
import type { OrchestratorInfoMessage } from "../../node/wire/messages.ts";
import { clogMessage, goDuration, type LogContext } from "../clog.ts";
import type { BroadcastConfig } from "../gateway/broadcast-config.ts";
import { callError, type OrchestratorConnections } from "../gateway/orchestrator-connections.ts";
import type { OrchestratorPool } from "../gateway/orchestrator-pool.ts";
import type { GlogLevel } from "../glog.ts";
import { type Handler, sendText } from "../http-server.ts";
import { clientIp } from "../orchestrator-routes.ts";
import { CAPABILITY_NAMES } from "../responses.ts";
import {
  aiRequestId,
  DEFAULT_MODEL_IDS,
  type JobBody,
  readJsonJob,
  SIMULATED_AI_PIPELINES,
  schemaProblem,
} from "./ai-requests.ts";

type Log = (level: GlogLevel, where: string, message: string) => void;

const INFO_TIMEOUT_MS = 3_000;
/** How long an AI job may take on the orchestrator (a cold runner takes a while). */
const AI_JOB_TIMEOUT_MS = 120_000;
/** Results kept for download (the node's memory store keeps them for the session). */
const KEPT_RESULTS = 200;

interface OfferingOrchestrator {
  url: string;
}

export class GatewayAi {
  private readonly results = new Map<string, Buffer>();
  private readonly pool: () => OrchestratorPool | undefined;
  private readonly caps: BroadcastConfig;
  private readonly log: Log;
  private readonly connections: OrchestratorConnections;

  constructor(
    pool: () => OrchestratorPool | undefined,
    caps: BroadcastConfig,
    log: Log,
    connections: OrchestratorConnections,
  ) {
    this.pool = pool;
    this.caps = caps;
    this.log = log;
    this.connections = connections;
  }

  /** Adds the AI job routes and serves stored results under /stream/ before the HLS handler. */
  extendHttpRoutes(routes: Record<string, Handler>): void {
    for (const pipeline of SIMULATED_AI_PIPELINES) {
      routes[`/${pipeline}`] = (req, res) => this.handle(pipeline, req, res);
    }
    const hls = routes["/stream/"];
    routes["/stream/"] = (req, res, url) => {
      const image = this.results.get(url.pathname);
      if (image) {
        res.writeHead(200, { "Content-Type": "image/png", "Content-Length": image.length });
        res.end(image);
        return;
      }
      return hls ? hls(req, res, url) : sendText(res, 404, "404 page not found");
    };
  }

  /** Each pool orchestrator's GetOrchestrator answer, undefined when it does not answer. */
  private async poolInfos(): Promise<{ url: string; info: OrchestratorInfoMessage | undefined }[]> {
    const pool = this.pool();
    if (!pool) return [];
    const { entries } = await pool.entries();
    return Promise.all(
      entries.map(async (entry) => ({
        url: entry.url,
        info: await this.connections.getOrchestrator(entry.url, INFO_TIMEOUT_MS).catch(() => undefined),
      })),
    );
  }

  private async handle(pipeline: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = aiRequestId();
    const base: LogContext = {
      extra: [
        ["clientIP", clientIp(req)],
        ["request_id", requestId],
      ],
    };
    const apiError = (context: LogContext, code: number, err: string) => {
      this.log("E", "handlers.go:1717", clogMessage(context, `Error with API code=${code} err=${err}`));
      const message =
        code === 500 ? "Internal Server Error" : code === 503 ? "Service Unavailable Error" : err;
      res.writeHead(code, { "Content-Type": "application/json" });
      res.end(`${JSON.stringify({ error: { message } })}\n`);
    };
    const read = await readJsonJob(req);
    const problem = "job" in read ? schemaProblem(pipeline, read.job) : undefined;
    if (problem) {
      this.log("E", "ai_mediaserver.go:76", `oapi validation error statusCode=400 message=${problem}`);
      return sendText(res, 400, problem);
    }
    if ("error" in read) return apiError(base, 400, read.error);
    const job: JobBody = { ...read.job };
    const modelId =
      typeof job.model_id === "string" && job.model_id !== "" ? job.model_id : DEFAULT_MODEL_IDS[pipeline]!;
    job.model_id = modelId;
    if (pipeline === "text-to-image") {
      job.height ??= 512;
      job.width ??= 512;
      job.num_images_per_prompt = Math.max(1, Number(job.num_images_per_prompt ?? 1));
    }
    const capability = pipelineCapability(pipeline)!;
    const context: LogContext = {
      extra: [
        ...(base.extra ?? []),
        ["capability", CAPABILITY_NAMES[capability] ?? String(capability)],
        ["model_id", modelId],
      ],
    };
    const started = performance.now();
    const processed = () =>
      this.log(
        "I",
        "ai_process.go:1490",
        clogMessage(
          context,
          `Processed AI request model_id=${modelId} took=${goDuration(performance.now() - started)}`,
        ),
      );

    const candidates = await this.offering(pipeline, capability, modelId);
    let try_ = 0;
    for (const orch of candidates) {
      try_++;
      const outcome = await this.submit(orch, pipeline, job);
      if ("error" in outcome) {
        this.log(
          "I",
          "ai_process.go:1568",
          clogMessage(
            context,
            `Error submitting request${retryElsewhere(outcome.error) ? " with non-retryable error" : ""} modelID=${modelId} try=${try_} orch=${orch.url} err=${outcome.error}`,
          ),
        );
        continue;
      }
      processed();
      const images =
        (outcome.body as { images?: { url?: string; seed?: number; nsfw?: boolean }[] }).images ?? [];
      const stored = images.map((image) => ({
        nsfw: image.nsfw === true,
        seed: image.seed ?? 0,
        url: this.store(requestId, image.url ?? ""),
      }));
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(`${JSON.stringify({ images: stored })}\n`);
      return;
    }
    processed();
    apiError(context, 503, "no orchestrators available");
  }

  /** The pool's orchestrators that advertise capability + model, in pool order, within the cap. */
  private async offering(
    pipeline: string,
    capability: number,
    modelId: string,
  ): Promise<OfferingOrchestrator[]> {
    const cap = this.caps.capabilityMaxPrices.get(pipeline);
    const maxPrice = cap?.get(modelId) ?? cap?.get("default");
    const answers = await this.poolInfos();
    const out: OfferingOrchestrator[] = [];
    for (const a of answers) {
      if (!a.info) continue;
      const models = a.info.capabilities?.constraints?.PerCapability?.[String(capability)]?.models ?? {};
      if (!(modelId in models)) continue;
      const price = a.info.capabilitiesPrices.find(
        (p) => p.capability === capability && p.constraint === modelId,
      );
      if (maxPrice?.unit === "wei" && price && BigInt(price.pixelsPerUnit) > 0n) {
        const perPixel = rational(BigInt(price.pricePerUnit), BigInt(price.pixelsPerUnit));
        if (compare(perPixel, maxPrice.perPixel) > 0) {
          this.log(
            "I",
            "simulator.go:22",
            `Simulated: orchestrator ${a.url} is above the max price for capability=${pipeline} model_id=${modelId}, skipped`,
          );
          continue;
        }
      }
      out.push({ url: a.url });
    }
    return out;
  }

  private async submit(
    orch: OfferingOrchestrator,
    pipeline: string,
    job: JobBody,
  ): Promise<{ body: unknown } | { error: string }> {
    try {
      const r = await this.connections
        .to(orch.url)
        .request(
          "POST",
          `/${pipeline}`,
          { "content-type": "application/json" },
          Buffer.from(JSON.stringify(job)),
          {
            timeoutMs: AI_JOB_TIMEOUT_MS,
          },
        );
      const text = r.body.toString("utf8");
      if (r.status !== 200) return { error: text.replace(/\n$/, "") };
      return { body: JSON.parse(text) as unknown };
    } catch (err) {
      return { error: callError("Post", `${orch.url.replace(/\/+$/, "")}/${pipeline}`, err) };
    }
  }

  /** A data URL's bytes into the memory store; the URL the node hands out for them. */
  private store(requestId: string, dataUrl: string): string {
    const m = /^data:image\/png;base64,(.*)$/s.exec(dataUrl);
    if (!m) return dataUrl;
    const name = `/stream/${requestId}/${randomBytes(4).toString("hex")}.png`;
    this.results.set(name, Buffer.from(m[1]!, "base64"));
    while (this.results.size > KEPT_RESULTS) this.results.delete(this.results.keys().next().value!);
    return name;
  }
}

/** ai_process.go: these errors put the session back and try another (the node's wording differs). */
function retryElsewhere(error: string): boolean {
  return ["ticketparams expired", "invalid ticket sendernonce", "insufficient capacity"].some((m) =>
    error.includes(m),
  );
}
