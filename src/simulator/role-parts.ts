// The moving parts of a role beyond its endpoints: a gateway's streams, pool and caps; an
// orchestrator's sessions. The lines they print while being set up are held back and printed in
// the node's startup order (before the CLI server line), as the node prints them.

import type { SimulatedEthClient } from "./chain-client.ts";
import { BroadcastConfig } from "./gateway/broadcast-config.ts";
import { Gateway } from "./gateway/gateway.ts";
import type { GlogLevel } from "./glog.ts";
import type { NodeModel } from "./node-model.ts";
import { OrchestratorSessions, TRANSCODE_LOOP_TIMEOUT_MS } from "./orchestrator-sessions.ts";
import type { StartupLine } from "./startup.ts";
import type { SimulatorState } from "./state.ts";

export interface RoleTimings {
  /** A gateway's -orchWebhookUrl refresh interval (the node: 1 minute). */
  orchWebhookRefreshMs?: number;
  /** No segment for this long ends a gateway's HTTP-pushed stream (the node: 60 s). */
  streamTimeoutMs?: number;
  /** No segment for this long ends an orchestrator's session (the node: 70 s). */
  sessionTimeoutMs?: number;
  /** A dynamic live runner without a heartbeat for this long is gone (the node: 20 s). */
  liveHeartbeatTtlMs?: number;
  /** How often static live runners' health_url is polled (the node: 5 s). */
  liveHealthIntervalMs?: number;
}

export interface RoleParts {
  broadcast: BroadcastConfig;
  gateway?: Gateway;
  sessions?: OrchestratorSessions;
  /** Lines printed while setting up, for the startup sequence (take them with splice). */
  setupLines: StartupLine[];
  /** After the startup lines: print what came in since, then log directly. */
  release(): void;
  stop(): void;
}

type Log = (level: GlogLevel, where: string, message: string) => void;

export function roleParts(
  node: NodeModel,
  state: SimulatorState,
  log: Log,
  timings: RoleTimings,
  eth?: SimulatedEthClient,
): RoleParts {
  const setupLines: StartupLine[] = [];
  let started = false;
  const held: Log = (level, where, message) =>
    started ? log(level, where, message) : setupLines.push([level, where, message]);
  const release = () => {
    started = true;
    for (const [level, where, message] of setupLines.splice(0)) log(level, where, message);
  };
  if (node.role === "gateway") {
    const gateway = new Gateway(node, state, held, timings, eth);
    return { broadcast: gateway.config, gateway, setupLines, release, stop: () => gateway.stop() };
  }
  release();
  const broadcast = new BroadcastConfig(
    {
      transcodingOptions: node.flags.transcodingOptions ?? "P240p30fps16x9,P360p30fps16x9",
      maxPricePerUnit: "0",
      pixelsPerUnit: "1",
    },
    node.network !== "offchain",
    log,
  );
  if (node.role !== "orchestrator") return { broadcast, setupLines, release, stop: () => {} };
  const sessions = new OrchestratorSessions(
    state,
    timings.sessionTimeoutMs ?? TRANSCODE_LOOP_TIMEOUT_MS,
    (id, mid, why) =>
      log("I", "simulator.go:11", `Simulated: session ended manifestID=${mid} orchSessionID=${id} (${why})`),
  );
  return { broadcast, sessions, setupLines, release, stop: () => sessions.stop() };
}
