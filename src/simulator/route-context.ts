// What every route handler of the simulator reads and changes: the node as its flags describe
// it, its mutable state, metrics, the scenario control and its log; a gateway's caps and streams,
// an orchestrator's sessions.
import type { Registry } from "prom-client";
import type { SimulatedEthClient } from "./chain-client.ts";
import type { BroadcastConfig } from "./gateway/broadcast-config.ts";
import type { Gateway } from "./gateway/gateway.ts";
import type { GlogLevel } from "./glog.ts";
import type { Handler } from "./http-server.ts";
import type { NodeModel } from "./node-model.ts";
import type { OrchestratorParts } from "./orchestrator-routes.ts";
import type { OrchestratorSessions } from "./orchestrator-sessions.ts";
import type { SimulatorControl, SimulatorState } from "./state.ts";

export interface RouteContext {
  node: NodeModel;
  state: SimulatorState;
  version: string;
  registry: Registry;
  control: SimulatorControl;
  log: (level: GlogLevel, where: string, message: string) => void;
  /** A gateway's caps (every role answers /setBroadcastConfig, as the node does). */
  broadcast: BroadcastConfig;
  gateway?: Gateway;
  sessions?: OrchestratorSessions;
  /** An orchestrator's GetOrchestrator answer, auth tokens and rendition store. */
  orchestrator?: OrchestratorParts;
  /** AI jobs: an orchestrator's runners, a gateway's routing (ai/). */
  ai?: {
    extendHttpRoutes(routes: Record<string, Handler>): void;
    extendCliRoutes?(routes: Record<string, Handler>): void;
  };
  /** Live AI (live/): trickle channels, live runners, /live-video-to-video, /payment. */
  live?: { extendHttpRoutes(routes: Record<string, Handler>): void };
  /** The node's Ethereum client (on-chain nodes only): the duty endpoints send real transactions. */
  eth?: SimulatedEthClient;
}
