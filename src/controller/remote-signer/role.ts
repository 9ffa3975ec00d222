// The remote signer as a role of the node-pod builder: its HTTP port (signing, payments, remote
// discovery) on a ClusterIP Service, its CLI port (which can spend: top-ups) in no Service, the
// keystore Secret mounted (no other role of a keyless set-up mounts it), no GPU, nothing set live.
import type { NodePodRole } from "../node-pod/index.ts";
import { type SignerFlagsInput, signerFlags } from "./flags.ts";
import { COMPONENT, SIGNER_CLI_PORT } from "./names.ts";

export function signerRole(httpPort: number): NodePodRole<SignerFlagsInput> {
  return {
    component: COMPONENT,
    ports: [
      { name: "http", containerPort: httpPort, publish: "public" },
      { name: "cli", containerPort: SIGNER_CLI_PORT, publish: "none" },
    ],
    statusPort: "cli",
    gpu: "none",
    secrets: ["keystore"],
    flags: (facts) => signerFlags(facts),
    live: [],
    configHeader: (owner) =>
      `Rendered by livepeer-operator for RemoteSigner ${owner}; edits are overwritten.`,
    configInputs: (n) => [n.config],
  };
}
