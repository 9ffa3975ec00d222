// `livepeer-operator live-runner-sim`: runs the live runner stand-in in the foreground: ai-runner's
// live-video-to-video app with a pass-through pipeline, registered with its orchestrator
// (heartbeats) or polled by it (static). Flags and variables: src/simulator/live/README.md.
import { startLiveRunnerSimulator } from "../../simulator/live-runner/live-runner.ts";
import { liveRunnerOptionsFromArgs } from "../../simulator/live-runner/live-runner-args.ts";
import type { Command } from "../command.ts";
import { runRunnerSimulator } from "../runner-sim.ts";

const usage = `Usage: livepeer-operator live-runner-sim [options]

Runs a stand-in for a live runner: livepeer/ai-runner's live-video-to-video app whose pipeline
passes every input segment through unchanged (GET /health, /version, POST /live-video-to-video).
With --orch-url and --orch-secret it registers with the orchestrator (POST /runners/heartbeat,
heartbeats, unregisters on exit); without, it is a static runner the orchestrator polls at /health
(-liveRunnerConfig). The port opens after the warm-up. Log lines (the runner's format) go to
standard error; when the port is open it prints READY {"url":...,"app":...} to standard output.

Options (environment variable in brackets):
  --model-id <name>          the live pipeline, e.g. noop; the app is live-video-to-video/<name> [MODEL_ID]
  --pipeline <name>          live-video-to-video (the only one)                     [PIPELINE]
  --token <token>            bearer token /live-video-to-video must carry           [AUTH_TOKEN]
  --addr <host:port>         address to bind (default 127.0.0.1:8000)   [LIVEPEER_SIM_RUNNER_ADDR]
  --pod-network              allow a non-loopback --addr (only inside a pod's own network)
  --orch-url <url>           the orchestrator to register with (its -liveRunnerAddr, else its
                             service URI), e.g. https://orch:8935                  [ORCH_URL]
  --orch-secret <secret>     the orchestrator's -orchSecret (prefer the variable)  [ORCH_SECRET]
  --runner-url <url>         where the orchestrator reaches this runner (default http://<addr>) [RUNNER_URL]
  --runner-id <id>           the runner id to propose (default: the orchestrator makes one) [RUNNER_ID]
  --capacity <n>             concurrent sessions (default 1)                       [CAPACITY]
  --price <usd>              price per unit (ignored off chain)                    [PRICE]
  --price-unit <unit>        hour, 720p or fixed (default hour)                    [PRICE_UNIT]
  --gpu-name <name>          the GPU it reports                                    [GPU_NAME]
  --runner-version <v>       version in /version and the registration (default 0.0.0-simulated) [VERSION]
  --warm-up-seconds <s>      time before the port opens (default 0)   [LIVEPEER_SIM_WARM_UP_SECONDS]

While it runs: POST /__sim/actions with {"fail": true} (the pipeline process crashes: /health
answers 500, heartbeats say "unavailable"), {"fail": false}, {"log": "line"}; GET /__sim/state.

Example:
  ORCH_SECRET=s3cret livepeer-operator live-runner-sim --model-id noop \\
    --orch-url https://127.0.0.1:8935 --addr 127.0.0.1:8001`;

export const command: Command = {
  name: "live-runner-sim",
  summary: "Run a live runner stand-in (pass-through live-video-to-video, heartbeat or static registration).",
  usage,
  run: (args) =>
    runRunnerSimulator(
      usage,
      () => liveRunnerOptionsFromArgs(args, process.env),
      startLiveRunnerSimulator,
      (o) => ({ app: `${o.pipeline}/${o.modelId}` }),
    ),
};
