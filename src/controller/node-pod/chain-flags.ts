// The chain flags every on-chain role shares: the RPC URL and Controller (the spec's, else the
// devnet deployment's), the account, and the keystore files as the pod mounts them. Offchain
// nodes get none of them.
import type { FlagValue } from "../../node/config/index.ts";
import type { ChainSpec } from "../../schema/chain.ts";
import { MOUNTS } from "./mounts.ts";

export type ChainFlagsSpec = Pick<
  ChainSpec,
  "network" | "ethUrl" | "ethController" | "ethAcctAddr" | "keystoreSecret"
>;

/** What a devnet deployment ConfigMap supplies where the spec is silent. */
export interface DevnetChain {
  ethUrl?: string;
  controller?: string;
}

export function chainFlags(spec: ChainFlagsSpec, devnet?: DevnetChain): Record<string, FlagValue> {
  if ((spec.network ?? "offchain") === "offchain") return {};
  const f: Record<string, FlagValue> = {};
  // Explicit spec fields win over what the devnet deployment supplies.
  const ethUrl = spec.ethUrl ?? devnet?.ethUrl;
  const controller = spec.ethController ?? devnet?.controller;
  if (ethUrl) f.ethUrl = ethUrl;
  if (controller) f.ethController = controller;
  if (spec.ethAcctAddr) f.ethAcctAddr = spec.ethAcctAddr;
  if (spec.keystoreSecret) {
    f.ethKeystorePath = `${MOUNTS.keystore}/key.json`;
    f.ethPassword = `${MOUNTS.keystore}/password`;
  }
  return f;
}
