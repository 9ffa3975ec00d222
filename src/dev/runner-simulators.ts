// The embedded default's AI runner: each runner pod (component ai-runner) gets the AI runner
// simulator on its own loopback pod IP, configured as the real image is, from the pod's
// PIPELINE, MODEL_ID and AUTH_TOKEN. Its model "loads" for a short cold start during which the
// port stays closed (the real runner binds after loading; the spec's 30-120 s would only slow a
// local run down), so AIReady=False and then True is visible without waiting minutes.

import { startAiRunnerSimulator } from "../simulator/ai-runner/runner.ts";
import { runnerOptionsFromArgs } from "../simulator/ai-runner/runner-args.ts";
import type { RunnerSimulatorFactory } from "./simulators.ts";

/** The local default cold start (override: LIVEPEER_SIM_COLD_START_SECONDS in the pod's env). */
export const LOCAL_COLD_START_SECONDS = 5;

export interface RunnerFactoryOptions {
  /** Seconds of model loading before the port opens (default LOCAL_COLD_START_SECONDS). */
  coldStartSeconds?: number;
}

export function aiRunnerSimulatorFactory(options: RunnerFactoryOptions = {}): RunnerSimulatorFactory {
  return async ({ host, port, env, log }) => {
    // The pod's env as the runner image reads it; the address is the pod's; a pod-set cold start wins.
    const runnerEnv = {
      LIVEPEER_SIM_COLD_START_SECONDS: String(options.coldStartSeconds ?? LOCAL_COLD_START_SECONDS),
      ...env,
      LIVEPEER_SIM_RUNNER_ADDR: `${host}:${port}`,
    };
    const runner = startAiRunnerSimulator({ ...runnerOptionsFromArgs([], runnerEnv), log });
    let stopped = false;
    // The port opens only after the cold start: a failure to bind then goes to the pod's log.
    runner.listening.catch((err: Error) => {
      if (!stopped) log(`AI runner simulator could not listen: ${err.message}`);
    });
    return {
      stop: () => {
        stopped = true;
        return runner.stop();
      },
    };
  };
}
