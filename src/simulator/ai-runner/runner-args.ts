// The AI runner simulator's command line and environment -> its options: the runner image's own
// variables (PIPELINE, MODEL_ID, AUTH_TOKEN) and the simulator's knobs, each with a message that
// names the option and what to give. Used by `livepeer-operator ai-runner-sim` and by whatever runs
// the runner in-process for a pod (the pod's args and env).
import { parseArgs } from "node:util";
import type { AiRunnerOptions } from "./runner.ts";

export class RunnerArgsError extends Error {
  /** An option the command does not know (show the usage). */
  readonly unknownOption: boolean;
  constructor(message: string, unknownOption = false) {
    super(message);
    this.name = "RunnerArgsError";
    this.unknownOption = unknownOption;
  }
}

const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|localhost)$/;

function numberOption(name: string, text: string | undefined, check: (n: number) => boolean, what: string) {
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || !check(n)) throw new RunnerArgsError(`--${name} ${text}: give ${what}`);
  return n;
}

/** The runner simulator's options from its command line and environment (the runner image's PIPELINE, MODEL_ID, AUTH_TOKEN). */
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
    throw new RunnerArgsError((err as Error).message, true);
  }
  const str = (name: string, variable?: string) =>
    (values[name] as string | undefined) ?? (variable ? env[variable] : undefined);
  const pipeline = str("pipeline", "PIPELINE");
  const modelId = str("model-id", "MODEL_ID");
  if (!pipeline)
    throw new RunnerArgsError("--pipeline (or PIPELINE) is required, e.g. --pipeline text-to-image");
  if (!modelId)
    throw new RunnerArgsError("--model-id (or MODEL_ID) is required, e.g. --model-id stabilityai/sd-turbo");
  const addr = str("addr", "LIVEPEER_SIM_RUNNER_ADDR") ?? "127.0.0.1:8000";
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(addr);
  if (!m || Number(m[3]) > 65535)
    throw new RunnerArgsError(`--addr ${addr}: give host:port, e.g. 127.0.0.1:8000`);
  const host = m[1] ?? m[2] ?? "";
  if (!LOOPBACK.test(host) && !values["pod-network"]) {
    throw new RunnerArgsError(
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
