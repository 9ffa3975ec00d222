// What an Orchestrator resource means in go-livepeer flags, for the orchestrator and for its
// transcoders (pure). The node-pod builder renders the result into the node's config file.
import type { FlagValue, FlagValues } from "../../node/config/index.ts";
import type { OrchestratorSpec } from "../../schema/orchestrator.ts";
import { chainFlags, type DevnetChain, MOUNTS } from "../node-pod/index.ts";
import { ORCH_SECRET_KEY, PORTS } from "./names.ts";

export interface OrchestratorFlagsInput {
  spec: Pick<
    OrchestratorSpec,
    | "network"
    | "ethUrl"
    | "ethAcctAddr"
    | "ethController"
    | "keystoreSecret"
    | "pricePerUnit"
    | "pixelsPerUnit"
    | "transcodingOptions"
    | "reward"
    | "ai"
  >;
  /** The devnet deployment's chain URL and Controller, when `spec.devnet` names one. */
  devnet?: DevnetChain;
  serviceAddr: string;
  /** The node pings its own service address ~2 s after start and exits if it does not answer. */
  selfCheckReachable: boolean;
  maxSessions: number | "auto";
  nvidiaDevices?: string;
  split: boolean;
  /** Live runners (spec.ai.live): static registration from a file, or dynamic at this in-cluster URL. */
  live?: { registration: "static" | "dynamic"; liveRunnerAddr: string; orchSecret: boolean } | undefined;
}

const ORCH_SECRET_FILE = `${MOUNTS.orchSecret}/${ORCH_SECRET_KEY}`;

export function orchestratorFlags(i: OrchestratorFlagsInput): FlagValues {
  const network = i.spec.network ?? "offchain";
  const f: Record<string, FlagValue> = {
    orchestrator: true,
    network,
    cliAddr: `0.0.0.0:${PORTS.cli}`,
    httpAddr: `0.0.0.0:${PORTS.service}`,
    serviceAddr: i.serviceAddr,
    dataDir: MOUNTS.data,
    monitor: true,
    maxSessions: String(i.maxSessions),
  };
  const aiOnly = i.spec.ai?.only === true;
  // An AI-only orchestrator transcodes nothing itself (and has no transcoders to wait for).
  if (!i.split && !aiOnly) f.transcoder = true;
  if (!i.selfCheckReachable) f.startupAvailabilityCheck = false;
  if (i.nvidiaDevices && !i.split) f.nvidia = i.nvidiaDevices;
  // Transcoders (split) and dynamic live runners present the orchestrator secret; a node that
  // neither transcodes nor runs -aiWorker exits without one (cmd/livepeer/starter), live or not.
  if (i.split || i.live?.orchSecret) f.orchSecret = ORCH_SECRET_FILE;
  if (network !== "offchain") {
    Object.assign(f, chainFlags(i.spec, i.devnet));
    f.reward = i.spec.reward ?? true;
  }
  if (i.spec.pricePerUnit !== undefined) f.pricePerUnit = i.spec.pricePerUnit;
  if (i.spec.pixelsPerUnit !== undefined) f.pixelsPerUnit = i.spec.pixelsPerUnit;
  if (i.spec.transcodingOptions) f.transcodingOptions = i.spec.transcodingOptions;
  if (i.spec.ai?.models?.length) {
    // Without -aiWorker the node advertises no AI capability, whatever -aiModels says.
    f.aiWorker = true;
    f.aiModels = `${MOUNTS.aiModels}/aiModels.json`;
  }
  if (i.live?.registration === "static") f.liveRunnerConfig = `${MOUNTS.liveRunners}/liveRunners.json`;
  if (i.live?.registration === "dynamic") {
    f.useLiveRunners = true;
    // Where runners heartbeat and call back: the node's in-cluster address, not the public one.
    f.liveRunnerAddr = i.live.liveRunnerAddr;
  }
  return f;
}

export interface TranscoderFlagsInput {
  /** The orchestrator's in-cluster address, which the transcoder dials. */
  orchAddr: string;
  /** The capacity the transcoder announces when it connects. */
  maxSessions: number;
  nvidiaDevices?: string;
}

export function transcoderFlags(i: TranscoderFlagsInput): FlagValues {
  const f: Record<string, FlagValue> = {
    transcoder: true,
    orchAddr: i.orchAddr,
    orchSecret: ORCH_SECRET_FILE,
    cliAddr: `0.0.0.0:${PORTS.transcoderCli}`,
    monitor: true,
    maxSessions: String(i.maxSessions),
  };
  if (i.nvidiaDevices) f.nvidia = i.nvidiaDevices;
  return f;
}
