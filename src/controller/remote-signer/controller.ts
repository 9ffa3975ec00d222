// Registration of the RemoteSigner controller.
import { ConfigMaps, Services, StatefulSets } from "../../kube/index.ts";
import { RemoteSigners } from "../../schema/resources.ts";
import type { ControllerDefinition } from "../runtime/index.ts";
import { type RemoteSignerOptions, RemoteSignerReconciler } from "./reconcile.ts";
import { SIGNER_CHILD_TYPES, signerCaches, signerWatches } from "./watch.ts";

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
