// Live runner pods get the live runner simulator on their own pod IP, configured from the pod's
// environment alone (MODEL_ID, AUTH_TOKEN, ORCH_URL, ORCH_SECRET, RUNNER_URL, CAPACITY, ...: see
// src/simulator/live/README.md), as `livepeer-operator live-runner-sim` reads it.
import { startLiveRunnerSimulator } from "../simulator/live-runner/live-runner.ts";
import { liveRunnerOptionsFromArgs } from "../simulator/live-runner/live-runner-args.ts";
import type { RunnerSimulatorFactory } from "./simulators.ts";

export interface LiveRunnerFleetOptions {
  /**
   * The pipeline's load time, as the real runner takes it before its port opens (a benchmark's
   * warm-up); a pod's own LIVEPEER_SIM_WARM_UP_SECONDS wins. Default 0.
   */
  warmUpSeconds?: number;
}

export function liveRunnerSimulatorFactory(o: LiveRunnerFleetOptions = {}): RunnerSimulatorFactory {
  return async ({ host, port, env, log, routePodHosts }) => {
    const runner = startLiveRunnerSimulator({
      ...liveRunnerOptionsFromArgs(["--pod-network"], {
        ...(o.warmUpSeconds ? { LIVEPEER_SIM_WARM_UP_SECONDS: String(o.warmUpSeconds) } : {}),
        ...env,
        LIVEPEER_SIM_RUNNER_ADDR: `${host}:${port}`,
      }),
      // The node names its trickle channels by its pod's DNS name.
      ...(routePodHosts ? { routeUrl: routePodHosts } : {}),
      log,
    });
    let stopped = false;
    runner.listening.catch((err: Error) => {
      if (!stopped) log(`live runner simulator could not listen: ${err.message}`);
    });
    return {
      stop: () => {
        stopped = true;
        return runner.stop();
      },
    };
  };
}
