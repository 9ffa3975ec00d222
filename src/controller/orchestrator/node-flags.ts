// What an Orchestrator resource means in go-livepeer flags. Pure: the reconciler renders the
// result into the node's config file (only `-config` stays on the command line, since command
// line flags override the file).
import { MOUNTS, PORTS } from "./names.ts";

export type FlagValues = Record<string, string | number | boolean>;

export interface OrchestratorFlagsInput {
  spec: {
    network?: string;
    ethUrl?: string;
    ethAcctAddr?: string;
    ethController?: string;
    keystoreSecret?: string;
    pricePerUnit?: string;
    pixelsPerUnit?: number;
    transcodingOptions?: string;
    reward?: boolean;
    ai?: { models?: unknown[] };
  };
  /** The devnet deployment's chain URL and Controller, when `spec.devnet` names one. */
  devnet?: { ethUrl?: string; controller?: string };
  serviceAddr: string;
  /** The node pings its own service address ~2 s after start and exits if it does not answer. */
  selfCheckReachable: boolean;
  maxSessions: number | "auto";
  nvidiaDevices?: string;
  split: boolean;
}

export function orchestratorFlags(i: OrchestratorFlagsInput): FlagValues {
  const network = i.spec.network ?? "offchain";
  const f: FlagValues = {
    orchestrator: true,
    network,
    cliAddr: `0.0.0.0:${PORTS.cli}`,
    httpAddr: `0.0.0.0:${PORTS.service}`,
    serviceAddr: i.serviceAddr,
    dataDir: MOUNTS.data,
    monitor: true,
    maxSessions: String(i.maxSessions),
  };
  if (!i.split) f.transcoder = true;
  if (!i.selfCheckReachable) f.startupAvailabilityCheck = false;
  if (i.nvidiaDevices && !i.split) f.nvidia = i.nvidiaDevices;
  if (i.split) f.orchSecret = `${MOUNTS.orchSecret}/secret`;
  // Explicit spec fields win over what the devnet deployment supplies.
  const ethUrl = i.spec.ethUrl ?? i.devnet?.ethUrl;
  const controller = i.spec.ethController ?? i.devnet?.controller;
  if (network !== "offchain") {
    if (ethUrl) f.ethUrl = ethUrl;
    if (controller) f.ethController = controller;
    if (i.spec.ethAcctAddr) f.ethAcctAddr = i.spec.ethAcctAddr;
    if (i.spec.keystoreSecret) {
      f.ethKeystorePath = `${MOUNTS.keystore}/key.json`;
      f.ethPassword = `${MOUNTS.keystore}/password`;
    }
    f.reward = i.spec.reward ?? true;
  }
  if (i.spec.pricePerUnit !== undefined) f.pricePerUnit = i.spec.pricePerUnit;
  if (i.spec.pixelsPerUnit !== undefined) f.pixelsPerUnit = i.spec.pixelsPerUnit;
  if (i.spec.transcodingOptions) f.transcodingOptions = i.spec.transcodingOptions;
  if (i.spec.ai?.models?.length) f.aiModels = `${MOUNTS.config}/aiModels.json`;
  return f;
}

export function transcoderFlags(i: {
  orchAddr: string;
  maxSessions: number;
  nvidiaDevices?: string;
  transcodingOptions?: string;
}): FlagValues {
  const f: FlagValues = {
    transcoder: true,
    orchAddr: i.orchAddr,
    orchSecret: `${MOUNTS.orchSecret}/secret`,
    cliAddr: `0.0.0.0:${PORTS.transcoderCli}`,
    monitor: true,
    maxSessions: String(i.maxSessions),
  };
  if (i.nvidiaDevices) f.nvidia = i.nvidiaDevices;
  return f;
}
