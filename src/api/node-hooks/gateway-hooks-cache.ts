// What the node hooks read: every Gateway's token digest, the orchestrators the controller
// decided to give it and whose webhooks get its stream events, from an informer over Gateways in
// all namespaces; and the same of every RemoteSigner (its discovery feed, -orchWebhookUrl), from a
// second informer. Only those fields are kept (the rest is not needed to answer a node).
import { Informer, type InformerHealth } from "../../kube/informer.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import { type KubeObject, keyFor } from "../../kube/objects.ts";
import type { Logger } from "../../process/log.ts";
import type { GatewaySpec, GivenOrchestrator } from "../../schema/gateway.ts";
import { Gateways, RemoteSigners } from "../../schema/resources.ts";

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

export class GatewayHooksCache {
  readonly #informer: Informer<GatewayHooks>;
  /** RemoteSigners: the same fields (token digest, orchestrators offered), the same transform. */
  readonly #signers: Informer<GatewayHooks>;

  constructor(client: KubeClient, log: Logger) {
    this.#informer = new Informer<GatewayHooks>(client, { resource: Gateways, transform: hooksFacts, log });
    this.#signers = new Informer<GatewayHooks>(client, {
      resource: RemoteSigners,
      transform: hooksFacts,
      log,
    });
  }

  start(): void {
    this.#informer.start();
    this.#signers.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.#informer.stop(), this.#signers.stop()]);
  }

  synced(): boolean {
    return this.#informer.hasSynced() && this.#signers.hasSynced();
  }

  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    const [gateways, signers] = await Promise.all([
      this.#informer.waitForSync(signal),
      this.#signers.waitForSync(signal),
    ]);
    return gateways && signers;
  }

  health(): InformerHealth {
    const gateways = this.#informer.health();
    return gateways.lastError ? gateways : this.#signers.health();
  }

  get(namespace: string, name: string): GatewayHooks | undefined {
    return this.#informer.store.get(keyFor(namespace, name));
  }

  /** A RemoteSigner's hook facts (its -orchWebhookUrl feed). */
  signer(namespace: string, name: string): GatewayHooks | undefined {
    return this.#signers.store.get(keyFor(namespace, name));
  }
}
