// Registration of the RemoteSigner controller.
import { ConfigMaps, Services, StatefulSets } from "../../kube/index.ts";
import { SUPPORTED_NODE_VERSIONS } from "../../node/config/index.ts";
import { RemoteSigners } from "../../schema/resources.ts";
import type { ControllerDefinition } from "../runtime/index.ts";
import { type RemoteSignerOptions, RemoteSignerReconciler } from "./reconcile.ts";
import { SIGNER_CHILD_TYPES, signerCaches, signerWatches } from "./watch.ts";

/**
 * The node image of a RemoteSigner without spec.image: the newest go-livepeer release the operator
 * knows (the remote signer's auth webhook needs 0.8.11; 0.9.0 refuses a public signer without one).
 */
export const DEFAULT_SIGNER_IMAGE = `livepeer/go-livepeer:${SUPPORTED_NODE_VERSIONS.newest}`;

export function remoteSignerController(options: RemoteSignerOptions): ControllerDefinition {
  return {
    name: "remote-signer",
    resource: RemoteSigners,
    // The hooks Secret is checked by name, not watched (node-status/owned-secrets.ts).
    owns: [StatefulSets, Services, ConfigMaps, ...SIGNER_CHILD_TYPES],
    watches: signerWatches,
    cache: signerCaches,
    setup: (ctx) => new RemoteSignerReconciler(ctx, options),
  };
}
