// What the node hooks read: every Gateway's token digest, the orchestrators the controller
// decided to give it and whose webhooks get its stream events, from an informer over Gateways in
// all namespaces; and the same of every RemoteSigner (its discovery feed, -orchWebhookUrl), from the
// API's one RemoteSigner cache (signer-auth/signer-cache.ts). Only those fields are kept (the rest
// is not needed to answer a node).
import { Informer, type InformerHealth } from "../../kube/informer.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import { type KubeObject, keyFor } from "../../kube/objects.ts";
import type { Logger } from "../../process/log.ts";
import type { GatewaySpec, GivenOrchestrator } from "../../schema/gateway.ts";
import { Gateways } from "../../schema/resources.ts";

export interface GatewayHooks extends KubeObject {
  spec?: { streamEvents?: GatewaySpec["streamEvents"] };
  status?: { hookTokenDigest?: string; orchestrators?: GivenOrchestrator[] };
}

export function hooksFacts(obj: GatewayHooks): GatewayHooks {
  const m = obj.metadata ?? {};
  const s = obj.status ?? {};
  const events = obj.spec?.streamEvents;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion },
    spec: events && typeof events === "object" ? { streamEvents: events } : {},
    status: {
      ...(typeof s.hookTokenDigest === "string" ? { hookTokenDigest: s.hookTokenDigest } : {}),
      ...(Array.isArray(s.orchestrators) ? { orchestrators: s.orchestrators } : {}),
    },
  };
}

/** Where the RemoteSigners' feed facts come from (the API's RemoteSigner cache, started by its owner). */
export interface SignerFeeds {
  synced(): boolean;
  feed(namespace: string, name: string): Pick<GatewayHooks, "metadata" | "status"> | undefined;
}

export class GatewayHooksCache {
  readonly #informer: Informer<GatewayHooks>;
  readonly #signers: SignerFeeds | undefined;

  constructor(client: KubeClient, log: Logger, signers?: SignerFeeds) {
    this.#informer = new Informer<GatewayHooks>(client, { resource: Gateways, transform: hooksFacts, log });
    this.#signers = signers;
  }

  start(): void {
    this.#informer.start();
  }

  stop(): Promise<void> {
    return this.#informer.stop();
  }

  synced(): boolean {
    return this.#informer.hasSynced() && (this.#signers?.synced() ?? true);
  }

  waitForSync(signal?: AbortSignal): Promise<boolean> {
    return this.#informer.waitForSync(signal);
  }

  health(): InformerHealth {
    return this.#informer.health();
  }

  get(namespace: string, name: string): GatewayHooks | undefined {
    return this.#informer.store.get(keyFor(namespace, name));
  }

  /** A RemoteSigner's hook facts (its -orchWebhookUrl feed). */
  signer(namespace: string, name: string): GatewayHooks | undefined {
    return this.#signers?.feed(namespace, name);
  }
}
