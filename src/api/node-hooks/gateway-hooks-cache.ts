// What the node hooks read: every Gateway's token digest, the orchestrators the controller
// decided to give it and whose webhooks get its stream events, from an informer over Gateways in
// all namespaces. Only those fields are kept (the rest of a Gateway is not needed to answer its node).
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

export class GatewayHooksCache {
  readonly #informer: Informer<GatewayHooks>;

  constructor(client: KubeClient, log: Logger) {
    this.#informer = new Informer<GatewayHooks>(client, { resource: Gateways, transform: hooksFacts, log });
  }

  start(): void {
    this.#informer.start();
  }

  stop(): Promise<void> {
    return this.#informer.stop();
  }

  synced(): boolean {
    return this.#informer.hasSynced();
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
}
