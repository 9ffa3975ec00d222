// The two node roles an Orchestrator runs, as data for the node-pod builder: the orchestrator
// itself and, in a split setup, its transcoders.

import { ORCHESTRATOR_PRICE, SESSION_LIMIT } from "../live/node-settings.ts";
import type { NodePodRole } from "../node-pod/index.ts";
import { PORTS } from "./names.ts";
import {
  type OrchestratorFlagsInput,
  orchestratorFlags,
  type TranscoderFlagsInput,
  transcoderFlags,
} from "./node-flags.ts";

/**
 * Set on the running orchestrator through its CLI port: a change of them alone does not restart
 * it. The node takes a new price only with a chain client (off chain `/setOrchestratorConfig`
 * answers "missing ETH client"), so off chain a new price restarts the node.
 */
export const orchestratorLive = (network: string | undefined) =>
  (network ?? "offchain") === "offchain" ? [SESSION_LIMIT] : [SESSION_LIMIT, ORCHESTRATOR_PRICE];

export const orchestratorRole = (
  network: string | undefined,
): NodePodRole<Omit<OrchestratorFlagsInput, "nvidiaDevices">> => ({
  component: "orchestrator",
  ports: [
    // Gateways' gRPC and HTTP, on one port.
    { name: "service", containerPort: PORTS.service, publish: "public" },
    { name: "cli", containerPort: PORTS.cli, publish: "cluster" },
  ],
  statusPort: "cli",
  gpu: "video-encoder",
  secrets: ["keystore", "orchSecret", "aiModels", "liveRunners"],
  flags: (facts, placement) => orchestratorFlags({ ...facts, ...placement }),
  live: orchestratorLive(network),
  configHeader: (owner) => `Rendered by livepeer-operator for Orchestrator ${owner}; edits are overwritten.`,
  // Every flag but the live ones (set on the running node), and the files beside the config.
  configInputs: (n) => [n.restartConfig, n.files["aiModels.json"] ?? ""],
});

export const TRANSCODER: NodePodRole<Omit<TranscoderFlagsInput, "nvidiaDevices">> = {
  component: "transcoder",
  // Read by the operator from the pod's IP; transcoders dial their orchestrator, nothing dials them.
  ports: [{ name: "cli", containerPort: PORTS.transcoderCli, publish: "none" }],
  statusPort: "cli",
  gpu: "video-encoder",
  secrets: ["orchSecret"],
  flags: (facts, placement) => transcoderFlags({ ...facts, ...placement }),
  // A transcoder announces its capacity when it connects: a new session limit needs a restart.
  live: [],
  configHeader: (owner) => `Transcoder of Orchestrator ${owner}.`,
  // The whole file as mounted.
  configInputs: (n) => [n.config],
};
