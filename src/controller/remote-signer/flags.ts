// What a RemoteSigner resource means in go-livepeer flags (pure). The node-pod builder renders them
// into the node's config file; the auth-hook and discovery URLs, which carry a token, reach the node
// as LP_REMOTESIGNERWEBHOOKURL and LP_ORCHWEBHOOKURL from the signer's Secret (never a ConfigMap).
import type { FlagValue, FlagValues } from "../../node/config/index.ts";
import type { RemoteSignerSpec } from "../../schema/remote-signer.ts";
import { chainFlags, type DevnetChain, MOUNTS } from "../node-pod/index.ts";
import { SIGNER_CLI_PORT } from "./names.ts";

export interface SignerFlagsInput {
  spec: RemoteSignerSpec;
  devnet?: DevnetChain;
}

export function signerFlags({ spec, devnet }: SignerFlagsInput): FlagValues {
  const f: Record<string, FlagValue> = {
    remoteSigner: true,
    network: spec.network,
    // Public inside the cluster (the Service, the NetworkPolicy decides who): go-livepeer then
    // refuses to start without -remoteSignerWebhookUrl, which the pod gets from its Secret.
    httpAddr: `0.0.0.0:${spec.port}`,
    // The operator's funding guard calls the CLI on the pod's IP; it is in no Service.
    cliAddr: `0.0.0.0:${SIGNER_CLI_PORT}`,
    dataDir: MOUNTS.data,
    monitor: true,
    ...chainFlags(spec, devnet),
  };
  if (spec.discovery) f.remoteDiscovery = true;
  return f;
}
