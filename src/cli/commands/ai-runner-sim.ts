// `livepeer-operator ai-runner-sim`: runs the AI runner stand-in in the foreground, configured as
// the real livepeer/ai-runner image is (PIPELINE, MODEL_ID, AUTH_TOKEN), plus the simulator's knobs.
import { startAiRunnerSimulator } from "../../simulator/ai-runner/runner.ts";
import { runnerOptionsFromArgs } from "../../simulator/ai-runner/runner-args.ts";
import type { Command } from "../command.ts";
import { runRunnerSimulator } from "../runner-sim.ts";

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

export const command: Command = {
  name: "ai-runner-sim",
  summary: "Run an AI runner stand-in (text-to-image, /health after a cold start, CUDA OOM on demand).",
  usage,
  run: (args) =>
    runRunnerSimulator(
      usage,
      () => runnerOptionsFromArgs(args, process.env),
      startAiRunnerSimulator,
      (o) => ({ pipeline: o.pipeline, modelId: o.modelId }),
    ),
};
