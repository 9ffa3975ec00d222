// Secrets the operator generates for a node resource (an Orchestrator's split-setup secret, a
// Gateway's hooks Secret), checked by name: the controller may create, patch and get Secrets in
// users' namespaces but not list or watch them, so no cache tells it they exist. What a GET
// showed (key names and metadata, never values) is remembered per owner for OWNED_SECRET_TRUSTED_MS,
// so a burst of reconciles is not a GET each; one deleted behind the operator's back is made
// again by the first reconcile after that (the resync visits every resource within 10 min).
import { isNotFound, type KubeClient, type KubeObject, Secrets } from "../../kube/index.ts";
import { type SecretKeys, secretKeysOnly } from "../webhook/secret-cache.ts";
import { Remembered } from "./remembered.ts";

export const OWNED_SECRET_TRUSTED_MS = 10 * 60_000;

export class OwnedSecrets {
  readonly #client: KubeClient;
  /** `ownerUid/namespace/name` -> what the Secret held when read or written (no values). */
  readonly #seen: Remembered<SecretKeys>;

  constructor(client: KubeClient, o: { trustedMs?: number; now?: () => number } = {}) {
    this.#client = client;
    this.#seen = new Remembered(o.trustedMs ?? OWNED_SECRET_TRUSTED_MS, o.now);
  }

  /** The Secret's key names and metadata in the owner's namespace, or undefined when it does not exist. */
  async read(owner: KubeObject, name: string): Promise<SecretKeys | undefined> {
    const key = this.#key(owner, name);
    const known = this.#seen.get(key);
    if (known) return known;
    let secret: KubeObject;
    try {
      secret = await this.#client.get(Secrets, owner.metadata?.namespace, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    const keys = secretKeysOnly(secret);
    this.#seen.set(key, keys);
    return keys;
  }

  /** Records what the operator just wrote (the API's answer), so the next read needs no GET. */
  wrote(owner: KubeObject, secret: KubeObject): void {
    this.#seen.set(this.#key(owner, secret.metadata?.name ?? ""), secretKeysOnly(secret));
  }

  #key(owner: KubeObject, name: string): string {
    return `${owner.metadata?.uid ?? ""}/${owner.metadata?.namespace ?? ""}/${name}`;
  }
}
