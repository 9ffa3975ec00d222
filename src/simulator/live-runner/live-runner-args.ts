// The live runner simulator's command line and environment -> its options. The runner image's own
// variables where it has them (PIPELINE, MODEL_ID, AUTH_TOKEN as livepeer/ai-runner), the
// registration's (ORCH_URL, ORCH_SECRET, RUNNER_URL, RUNNER_ID, CAPACITY, PRICE, PRICE_UNIT as the
// runner SDK's register_runner arguments), and the simulator's knobs (LIVEPEER_SIM_*). Every value
// can come from the environment alone, so a pod's env configures it.
import { parseArgs } from "node:util";
import { RunnerArgsError } from "../ai-runner/runner-args.ts";
import { LIVE_PIPELINE, type LiveRunnerOptions } from "./live-runner.ts";

const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|localhost)$/;

export function liveRunnerOptionsFromArgs(args: string[], env: NodeJS.ProcessEnv): LiveRunnerOptions {
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
        "orch-url": { type: "string" },
        "orch-secret": { type: "string" },
        "runner-url": { type: "string" },
        "runner-id": { type: "string" },
        capacity: { type: "string" },
        price: { type: "string" },
        "price-unit": { type: "string" },
        "gpu-name": { type: "string" },
        "runner-version": { type: "string" },
        "warm-up-seconds": { type: "string" },
      },
    }).values;
  } catch (err) {
    throw new RunnerArgsError((err as Error).message, true);
  }
  const str = (name: string, variable?: string) =>
    (values[name] as string | undefined) ?? (variable ? env[variable] : undefined) ?? undefined;
  const pipeline = str("pipeline", "PIPELINE") || LIVE_PIPELINE;
  if (pipeline !== LIVE_PIPELINE)
    throw new RunnerArgsError(`--pipeline ${pipeline}: a live runner serves ${LIVE_PIPELINE}`);
  const modelId = str("model-id", "MODEL_ID");
  if (!modelId)
    throw new RunnerArgsError(
      "--model-id (or MODEL_ID) is required: the live pipeline, e.g. --model-id noop",
    );
  const addr = str("addr", "LIVEPEER_SIM_RUNNER_ADDR") ?? "127.0.0.1:8000";
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(addr);
  if (!m || Number(m[3]) > 65535)
    throw new RunnerArgsError(`--addr ${addr}: give host:port, e.g. 127.0.0.1:8000`);
  const host = m[1] ?? m[2] ?? "";
  if (!LOOPBACK.test(host) && !values["pod-network"])
    throw new RunnerArgsError(
      `--addr ${addr}: the simulator binds only loopback addresses on a host; inside a pod's own network add --pod-network`,
    );
  const orchUrl = str("orch-url", "ORCH_URL");
  const orchSecret = str("orch-secret", "ORCH_SECRET");
  if (orchUrl) {
    try {
      const u = new URL(orchUrl);
      if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error("scheme");
    } catch {
      throw new RunnerArgsError(`--orch-url ${orchUrl}: give the orchestrator's URL, e.g. https://orch:8935`);
    }
    if (!orchSecret)
      throw new RunnerArgsError(
        "--orch-secret (or ORCH_SECRET) is required with --orch-url: the orchestrator's -orchSecret",
      );
  }
  const runnerUrl = str("runner-url", "RUNNER_URL");
  if (runnerUrl && !/^https?:\/\/[^/]+/.test(runnerUrl))
    throw new RunnerArgsError(
      `--runner-url ${runnerUrl}: give the URL the orchestrator reaches this runner at, e.g. http://10.0.0.5:8000`,
    );
  const whole = (name: string, variable: string, min: number) => {
    const text = str(name, variable);
    if (text === undefined || text === "") return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < min)
      throw new RunnerArgsError(`--${name} ${text}: give a whole number >= ${min}`);
    return n;
  };
  const capacity = whole("capacity", "CAPACITY", 1);
  const warmText = str("warm-up-seconds", "LIVEPEER_SIM_WARM_UP_SECONDS");
  const warm = warmText ? Number(warmText) : undefined;
  if (warm !== undefined && !(warm >= 0))
    throw new RunnerArgsError(`--warm-up-seconds ${warmText}: give seconds >= 0`);
  const price = str("price", "PRICE");
  if (price !== undefined && price !== "" && !(Number(price) >= 0))
    throw new RunnerArgsError(`--price ${price}: give USD per unit, e.g. 3.50`);
  const unit = str("price-unit", "PRICE_UNIT");
  if (unit && !["hour", "720p", "fixed"].includes(unit))
    throw new RunnerArgsError(`--price-unit ${unit}: give hour, 720p or fixed`);
  const token = str("token", "AUTH_TOKEN");
  const runnerId = str("runner-id", "RUNNER_ID");
  const gpuName = str("gpu-name", "GPU_NAME");
  const version = str("runner-version", "VERSION");
  return {
    pipeline,
    modelId,
    host: host || "0.0.0.0",
    port: Number(m[3]),
    ...(token ? { token } : {}),
    ...(orchUrl ? { orchUrl, orchSecret: orchSecret! } : {}),
    ...(runnerUrl ? { runnerUrl } : {}),
    ...(runnerId ? { runnerId } : {}),
    ...(capacity !== undefined ? { capacity } : {}),
    ...(price ? { price } : {}),
    ...(unit ? { priceUnit: unit } : {}),
    ...(gpuName ? { gpuName } : {}),
    ...(version ? { version } : {}),
    ...(warm !== undefined ? { warmUpMs: warm * 1000 } : {}),
  };
}
