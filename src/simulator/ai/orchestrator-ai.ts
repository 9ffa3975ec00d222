// An orchestrator's AI side (-aiWorker with -aiModels): its external runners warmed before the
// node binds its ports, and the AI job routes on its service port (server/ai_http.go): a job for a
// pipeline/model none of its runners serves, or beyond the model's capacity, is refused with 503
// "insufficient capacity" - which is also all a video-only orchestrator ever answers.
import type { ServerResponse } from "node:http";
import { clogMessage, goDuration } from "../clog.ts";
import type { GlogLevel } from "../glog.ts";
import { type Handler, sendText } from "../http-server.ts";
import type { NodeModel, SimulatedAiModel } from "../node-model.ts";
import { clientIp } from "../orchestrator-routes.ts";
import { CAPABILITY_NAMES } from "../responses.ts";
import { aiRequestId, readJsonJob, SIMULATED_AI_PIPELINES, schemaProblem } from "./ai-requests.ts";
import {
  type ExternalRunner,
  RunnerWarmError,
  submitToRunner,
  warmExternalRunner,
} from "./external-runners.ts";

type Log = (level: GlogLevel, where: string, message: string) => void;

export class OrchestratorAiStartError extends Error {}

export class OrchestratorAi {
  private readonly runners: ExternalRunner[];
  private readonly served: SimulatedAiModel[];
  private readonly log: Log;
  private readonly sink: (line: string) => void;

  private constructor(
    served: SimulatedAiModel[],
    runners: ExternalRunner[],
    log: Log,
    sink: (l: string) => void,
  ) {
    this.served = served;
    this.runners = runners;
    this.log = log;
    this.sink = sink;
  }

  /** starter.go's AI set-up, in its order; throws OrchestratorAiStartError where the node exits. */
  static async start(
    node: NodeModel,
    log: Log,
    sink: (line: string) => void,
    runnerTimeoutMs?: number,
    /** Ends the wait for the runners (the node's process stopped before they answered). */
    signal?: AbortSignal,
  ): Promise<OrchestratorAi> {
    if (!node.aiWorker) return new OrchestratorAi([], [], log, sink);
    if (node.aiModels.length === 0) {
      const message =
        "The '-aiWorker' flag was set, but no model configuration was provided. Please specify the model configuration using the '-aiModels' flag.";
      log("E", "starter.go:1560", message);
      throw new OrchestratorAiStartError(message);
    }
    if (!node.flags.nvidia) log("W", "starter.go:1360", "!!! No GPU discovered, using CPU for AIWorker !!!");
    log(
      "W",
      "simulator.go:20",
      'Simulated: go-livepeer\'s -aiWorker lists Docker containers at start even when every model has a url (ai/worker/docker.go NewDockerManager): without a reachable Docker daemon the real node exits with "Error starting AI worker: error creating docker manager: failed to list containers: ...". The simulator needs no Docker daemon.',
    );
    const runners: ExternalRunner[] = [];
    for (const model of node.aiModels) {
      if (!model.url) {
        log(
          "W",
          "simulator.go:21",
          `Simulated: ${model.pipeline} model ${model.modelId} has no url: the node would run it in a managed Docker container; the simulator advertises it but cannot serve its jobs`,
        );
        continue;
      }
      try {
        const runner = await warmExternalRunner({ ...model, url: model.url }, sink, runnerTimeoutMs, signal);
        model.runnerVersion = runner.version;
        runners.push(runner);
      } catch (err) {
        if (!(err instanceof RunnerWarmError)) throw err;
        const message = `Error AI worker warming ${model.pipeline} container: ${err.message}`;
        log("E", "starter.go:1477", message);
        throw new OrchestratorAiStartError(message);
      }
    }
    return new OrchestratorAi(node.aiModels, runners, log, sink);
  }

  /** The job routes of the service port. */
  extendHttpRoutes(routes: Record<string, Handler>): void {
    for (const pipeline of SIMULATED_AI_PIPELINES) {
      routes[`/${pipeline}`] = (req, res) => this.handle(pipeline, req, res);
    }
  }

  private async handle(pipeline: string, req: Parameters<Handler>[0], res: ServerResponse): Promise<void> {
    const context = { extra: [["clientIP", clientIp(req)]] as const };
    const refuse = (status: number, message: string) => {
      this.log("E", "handlers.go:1750", `HTTP Response Error statusCode=${status} err=${message}`);
      sendText(res, status, message);
    };
    const read = await readJsonJob(req);
    if ("error" in read) return refuse(400, read.error);
    const problem = schemaProblem(pipeline, read.job);
    if (problem) {
      this.log(
        "E",
        "ai_http.go:61",
        clogMessage({}, `oapi validation error statusCode=400 message=${problem}`),
      );
      return sendText(res, 400, problem);
    }
    const modelId = typeof read.job.model_id === "string" ? read.job.model_id : "";
    if (modelId === "") {
      return refuse(
        400,
        "Simulated: model_id is required (the node reads it without a check; gateways always send it)",
      );
    }
    const requestId = aiRequestId();
    const served = this.served.find((m) => m.pipeline === pipeline && m.modelId === modelId);
    const runner = this.runners.find((r) => r.model.pipeline === pipeline && r.model.modelId === modelId);
    const capacity = served?.capacity ?? 0;
    if (!served || (runner && runner.inFlight >= capacity)) {
      this.log(
        "E",
        "ai_http.go:1598",
        clogMessage(context, `Insufficient capacity for pipeline=${pipeline} modelID=${modelId}`),
      );
      return refuse(503, "insufficient capacity");
    }
    if (!runner) {
      return refuse(
        500,
        `Simulated: ${pipeline} model ${modelId} runs in a managed container, which the simulator does not run: give it a url`,
      );
    }
    const started = performance.now();
    runner.inFlight++;
    let answer: Awaited<ReturnType<typeof submitToRunner>>;
    try {
      answer = await submitToRunner(runner, read.job, this.sink);
    } finally {
      runner.inFlight--;
    }
    if (!answer.ok) return refuse(500, answer.error);
    const capName = CAPABILITY_NAMES[served.capability] ?? String(served.capability);
    this.log(
      "I",
      "ai_http.go:1676",
      clogMessage(
        context,
        `Processed request id=${requestId} cap=${capName} modelID=${modelId} took=${goDuration(performance.now() - started)}`,
      ),
    );
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(answer.body));
  }
}
