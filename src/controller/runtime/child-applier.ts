// Server-side applies children, skipping the writes that cannot change anything.
//
// A reconcile runs on every pod, node and status event, and applying every child each time
// costs the API server one write per child per event (an unchanged apply is still a full
// request, admission and a diff). The applier remembers, per owner, the hash of what it last
// applied for each child and the version the API server answered with (metadata.generation for
// objects that have one, so status-only updates do not count as drift; resourceVersion else).
// It writes again only when the desired object changed, the cached child is missing, or the
// cached child's version moved (someone else edited it: the apply restores our fields).
// Memory is per process: after a restart every child is applied once, which is the convergence
// the restart needs anyway. What the API server answers goes into the cache at once
// (Informer.applyWritten): the status computed after the apply sees the child, and the watch
// event that follows is not a reason to reconcile the owner again.
import { createHash } from "node:crypto";
import { applyOwned, type ConflictRetryOptions, withOwner } from "../../kube/apply.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import { type KubeObject, keyFor, keyOf, type ObjectKey } from "../../kube/objects.ts";
import { type ResourceType, resourceName } from "../../kube/resources.ts";
import type { CacheReader } from "./reconciler.ts";

interface Applied {
  hash: string;
  version: string;
}

/** The version that moves when someone else changes what we applied. */
function versionOf(obj: KubeObject): string {
  const m = obj.metadata ?? {};
  return m.generation ? `g${m.generation}` : `rv${m.resourceVersion ?? ""}`;
}

export class ChildApplier {
  readonly #client: KubeClient;
  readonly #cache: CacheReader;
  /** owner key -> child (resource/namespace/name) -> what was applied. */
  readonly #applied = new Map<ObjectKey, Map<string, Applied>>();
  #skipped = 0;
  #written = 0;

  constructor(client: KubeClient, cache: CacheReader) {
    this.#client = client;
    this.#cache = cache;
  }

  /** Applies `child` owned by `owner` unless the cluster already holds exactly it. */
  async apply(
    type: ResourceType,
    owner: KubeObject,
    child: KubeObject,
    o?: ConflictRetryOptions,
  ): Promise<void> {
    const body = withOwner(owner, child);
    const hash = createHash("sha256").update(JSON.stringify(body)).digest("base64url");
    const childKey = `${resourceName(type)}/${keyOf(body)}`;
    const ownerKey = keyOf(owner);
    const last = this.#applied.get(ownerKey)?.get(childKey);
    const cached = this.#cache.get(type, keyFor(body.metadata?.namespace, body.metadata?.name ?? ""));
    if (last && cached && last.hash === hash && last.version === versionOf(cached)) {
      this.#skipped++;
      return;
    }
    const result = await applyOwned<KubeObject>(this.#client, type, owner, child, o);
    // The rest of this reconcile reads what it wrote, and the watch's echo of it wakes no one.
    this.#cache.informer(type).applyWritten(result);
    this.#written++;
    const children = this.#applied.get(ownerKey) ?? new Map<string, Applied>();
    children.set(childKey, { hash, version: versionOf(result) });
    this.#applied.set(ownerKey, children);
  }

  /** Drops what was remembered for a deleted owner. */
  forget(ownerKey: ObjectKey): void {
    this.#applied.delete(ownerKey);
  }

  get stats(): { written: number; skipped: number; owners: number } {
    return { written: this.#written, skipped: this.#skipped, owners: this.#applied.size };
  }
}
