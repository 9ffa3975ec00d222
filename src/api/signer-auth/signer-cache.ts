// What the API reads of every RemoteSigner: its token digest (status.hookTokenDigest, which the
// controller publishes), its tenants (spec: the auth hook) and the orchestrators the controller
// offers through it (status.orchestrators: its discovery feed), from one informer over
// RemoteSigners in all namespaces; the rest of a RemoteSigner is not kept. Read-only: list/watch,
// no Secrets.
import { Informer, type InformerHealth } from "../../kube/informer.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import { type KubeObject, keyFor } from "../../kube/objects.ts";
import type { Logger } from "../../process/log.ts";
import type { GivenOrchestrator } from "../../schema/gateway.ts";
import type { RemoteSignerSpec } from "../../schema/remote-signer.ts";
import { RemoteSigners } from "../../schema/resources.ts";
import { type SignerPolicy, signerPolicy } from "./tenant-policy.ts";

export interface SignerHookFacts extends KubeObject {
  spec?: Partial<Pick<RemoteSignerSpec, "authCacheSeconds" | "tenants">>;
  status?: { hookTokenDigest?: string; orchestrators?: GivenOrchestrator[] };
}

export function signerHookFacts(obj: SignerHookFacts): SignerHookFacts {
  const m = obj.metadata ?? {};
  const spec = obj.spec ?? {};
  const digest = obj.status?.hookTokenDigest;
  const offered = obj.status?.orchestrators;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion },
    spec: {
      ...(typeof spec.authCacheSeconds === "number" ? { authCacheSeconds: spec.authCacheSeconds } : {}),
      ...(Array.isArray(spec.tenants) ? { tenants: spec.tenants } : {}),
    },
    status: {
      ...(typeof digest === "string" ? { hookTokenDigest: digest } : {}),
      ...(Array.isArray(offered) ? { orchestrators: offered } : {}),
    },
  };
}

/** One cached signer: its policy and the digest its hook token must match. */
export interface CachedSigner {
  policy: SignerPolicy;
  hookTokenDigest: string | undefined;
}

export interface SignerSource {
  synced(): boolean;
  get(namespace: string, name: string): CachedSigner | undefined;
}

export class RemoteSignerCache implements SignerSource {
  readonly #informer: Informer<SignerHookFacts>;
  // The policy object per resourceVersion: not rebuilt per call.
  readonly #policies = new WeakMap<SignerHookFacts, CachedSigner>();

  constructor(client: KubeClient, log: Logger) {
    this.#informer = new Informer<SignerHookFacts>(client, {
      resource: RemoteSigners,
      transform: signerHookFacts,
      log,
    });
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

  /** The signer's discovery feed facts (its -orchWebhookUrl): the token digest and the orchestrators offered. */
  feed(namespace: string, name: string): Pick<SignerHookFacts, "metadata" | "status"> | undefined {
    const obj = this.#informer.store.get(keyFor(namespace, name));
    return obj ? { metadata: obj.metadata, status: obj.status } : undefined;
  }

  get(namespace: string, name: string): CachedSigner | undefined {
    const obj = this.#informer.store.get(keyFor(namespace, name));
    if (!obj) return undefined;
    let cached = this.#policies.get(obj);
    if (!cached) {
      cached = {
        policy: signerPolicy(namespace, name, obj.spec),
        hookTokenDigest: obj.status?.hookTokenDigest,
      };
      this.#policies.set(obj, cached);
    }
    return cached;
  }
}
