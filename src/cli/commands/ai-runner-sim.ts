// `livepeer-operator ai-runner-sim`: runs the AI runner stand-in in the foreground, configured as
// the real livepeer/ai-runner image is (PIPELINE, MODEL_ID, AUTH_TOKEN), plus the simulator's knobs.
import { parseArgs } from "node:util";
import { type AiRunnerOptions, startAiRunnerSimulator } from "../../node/simulator/ai-runner/runner.ts";
import { type Command, UsageError } from "../command.ts";

const usage = `Usage: livepeer-operator ai-runner-sim [options]

Runs a stand-in for the livepeer/ai-runner container (one pipeline, one model): GET /health,
/version, /hardware/info, /hardware/stats and POST /text-to-image (each image a solid-colour PNG
as a data URL, in the runner's answer shape). The port opens only after the cold start, as the
real runner binds after loading its model. Log lines (the runner's format) go to standard error;
when the port is open it prints one line to standard output: READY {"url":...,"pipeline":...}.
Other pipelines answer /health and /hardware/* but their route answers 500 (not simulated).

Options (environment variable in brackets; the real image's names where it has them):
  --pipeline <name>            pipeline to serve, e.g. text-to-image          [PIPELINE]
  --model-id <org/model>       model to serve, e.g. stabilityai/sd-turbo      [MODEL_ID]
  --token <token>              bearer token pipeline requests must carry      [AUTH_TOKEN]
                               (prefer the variable: a command line is visible to other users)
  --addr <host:port>           address to bind (default 127.0.0.1:8000)  [LIVEPEER_SIM_RUNNER_ADDR]
  --pod-network                allow a non-loopback --addr (only inside a pod's own network)
  --cold-start-seconds <s>     model loading time before the port opens (default 0; the spec
                               says 30-120 s)                     [LIVEPEER_SIM_COLD_START_SECONDS]
  --inference-ms <ms>          time per image (default 0)
  --oom-after <n>              after n images every request runs out of GPU memory: the runner
                               logs "CUDA out of memory" and answers 500  [LIVEPEER_SIM_OOM_AFTER]
  --gpus <n>                   GPUs in /hardware/* (default 1)
  --gpu-name <name>            GPU name (default "Simulated GPU")
  --gpu-memory-gib <n>         memory per GPU (default 24)
  --gpu-memory-used <0..1>     fraction in use once loaded (default 0.4)   [LIVEPEER_SIM_GPU_MEMORY_USED]
  --runner-version <v>         version in /version (default 0.0.0-simulated)

While it runs: POST /__sim/actions with {"oom": true}, {"oom": false}, {"gpuMemoryUsed": 0.9} or
{"log": "line"} (or a list of them), and GET /__sim/state.

Example:
  AUTH_TOKEN=s3cret livepeer-operator ai-runner-sim --pipeline text-to-image \\
    --model-id stabilityai/sd-turbo --addr 127.0.0.1:8000 --cold-start-seconds 30`;

const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|localhost)$/;

function numberOption(name: string, text: string | undefined, check: (n: number) => boolean, what: string) {
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || !check(n)) throw new UsageError(`--${name} ${text}: give ${what}`);
  return n;
}

export function runnerOptionsFromArgs(args: string[], env: NodeJS.ProcessEnv): AiRunnerOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args,
      strict: true,
      options: {
        pipeline: { type: "string" },
        "model-id": { type: "string" },
        token: { type: "string" },
        addr: { type: "string" },
        "pod-network": { type: "boolean" },
        "cold-start-seconds": { type: "string" },
        "inference-ms": { type: "string" },
        "oom-after": { type: "string" },
        gpus: { type: "string" },
        "gpu-name": { type: "string" },
        "gpu-memory-gib": { type: "string" },
        "gpu-memory-used": { type: "string" },
        "runner-version": { type: "string" },
      },
    }).values;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${usage}`);
  }
  const str = (name: string, variable?: string) =>
    (values[name] as string | undefined) ?? (variable ? env[variable] : undefined);
  const pipeline = str("pipeline", "PIPELINE");
  const modelId = str("model-id", "MODEL_ID");
  if (!pipeline) throw new UsageError("--pipeline (or PIPELINE) is required, e.g. --pipeline text-to-image");
  if (!modelId)
    throw new UsageError("--model-id (or MODEL_ID) is required, e.g. --model-id stabilityai/sd-turbo");
  const addr = str("addr", "LIVEPEER_SIM_RUNNER_ADDR") ?? "127.0.0.1:8000";
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(addr);
  if (!m || Number(m[3]) > 65535) throw new UsageError(`--addr ${addr}: give host:port, e.g. 127.0.0.1:8000`);
  const host = m[1] ?? m[2] ?? "";
  if (!LOOPBACK.test(host) && !values["pod-network"]) {
    throw new UsageError(
      `--addr ${addr}: the simulator binds only loopback addresses on a host; inside a pod's own network add --pod-network`,
    );
  }
  const whole = (n: number) => Number.isInteger(n) && n >= 0;
  const coldStart = numberOption(
    "cold-start-seconds",
    str("cold-start-seconds", "LIVEPEER_SIM_COLD_START_SECONDS"),
    (n) => n >= 0,
    "seconds >= 0",
  );
  const inference = numberOption("inference-ms", str("inference-ms"), (n) => n >= 0, "milliseconds >= 0");
  const oomAfter = numberOption(
    "oom-after",
    str("oom-after", "LIVEPEER_SIM_OOM_AFTER"),
    whole,
    "a whole number >= 0",
  );
  const gpus = numberOption("gpus", str("gpus"), (n) => Number.isInteger(n) && n > 0, "a whole number > 0");
  const memory = numberOption("gpu-memory-gib", str("gpu-memory-gib"), (n) => n > 0, "GiB > 0");
  const used = numberOption(
    "gpu-memory-used",
    str("gpu-memory-used", "LIVEPEER_SIM_GPU_MEMORY_USED"),
    (n) => n >= 0 && n <= 1,
    "a fraction from 0 to 1",
  );
  const token = str("token", "AUTH_TOKEN");
  const gpuName = str("gpu-name");
  const version = str("runner-version");
  return {
    pipeline,
    modelId,
    host: host || "0.0.0.0",
    port: Number(m[3]),
    ...(token ? { token } : {}),
    ...(coldStart !== undefined ? { coldStartMs: coldStart * 1000 } : {}),
    ...(inference !== undefined ? { inferenceMs: inference } : {}),
    ...(oomAfter !== undefined ? { oomAfter } : {}),
    ...(gpus !== undefined ? { gpus } : {}),
    ...(gpuName ? { gpuName } : {}),
    ...(memory !== undefined ? { gpuMemoryTotal: Math.round(memory * 1024 ** 3) } : {}),
    ...(used !== undefined ? { gpuMemoryUsed: used } : {}),
    ...(version ? { version } : {}),
  };
}

export const command: Command = {
  name: "ai-runner-sim",
  summary: "Run an AI runner stand-in (text-to-image, /health after a cold start, CUDA OOM on demand).",
  usage,
  async run(args) {
    const options = runnerOptionsFromArgs(args, process.env);
    const runner = startAiRunnerSimulator(options);
    const stopped = new Promise<string>((resolve) => {
      process.once("SIGINT", () => resolve("interrupt"));
      process.once("SIGTERM", () => resolve("terminated"));
    });
    const outcome = await Promise.race([
      runner.listening.then(
        (url) => ({ url }),
        (err: Error) => ({ error: err }),
      ),
      stopped.then(() => ({ signalled: true as const })),
    ]);
    if ("error" in outcome) return 1;
    if ("url" in outcome) {
      process.stdout.write(
        `READY ${JSON.stringify({ url: outcome.url, pipeline: options.pipeline, modelId: options.modelId })}\n`,
      );
      await stopped;
    }
    await runner.stop();
    return 0;
  },
};
