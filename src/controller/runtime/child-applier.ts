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
//
// What is remembered is kept small (5,000 Orchestrators have 25,000 children): per owner one
// string with a line per child, `<resource>/<namespace>/<name> <digest><version>`.
import { createHash } from "node:crypto";
import { applyOwned, type ConflictRetryOptions, withOwner } from "../../kube/apply.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import { type KubeObject, keyFor, keyOf, type ObjectKey } from "../../kube/objects.ts";
import { type ResourceType, resourceName } from "../../kube/resources.ts";
import { flatString } from "./flat-string.ts";
import type { CacheReader } from "./reconciler.ts";

/**
 * Bytes of a digest: the first 16 bytes (128 bits) of the SHA-256 of the applied body, in
 * base64url. A digest is only compared with the previous one of the same child, so a wrong skip
 * needs two bodies of one child whose digests collide: about 2^-128 a comparison, under 2^-90
 * for 5,000 owners with 5 children each reconciled every second for a century (2^43
 * comparisons). Choosing such a pair on purpose takes about 2^64 hashes, and whoever writes the
 * spec can change the children anyway.
 */
const DIGEST_BYTES = 16;

/** The version that moves when someone else changes what we applied. */
function versionOf(obj: KubeObject): string {
  const m = obj.metadata ?? {};
  return m.generation ? `g${m.generation}` : `rv${m.resourceVersion ?? ""}`;
}

export class ChildApplier {
  readonly #client: KubeClient;
  readonly #cache: CacheReader;
  /** owner key -> a line per child applied: `<resource>/<namespace>/<name> <digest><version>`. */
  readonly #applied = new Map<ObjectKey, string>();
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
    const digest = createHash("sha256")
      .update(JSON.stringify(body))
      .digest()
      .toString("base64url", 0, DIGEST_BYTES);
    const childKey = `${resourceName(type)}/${keyOf(body)}`;
    const ownerKey = keyOf(owner);
    const cached = this.#cache.get(type, keyFor(body.metadata?.namespace, body.metadata?.name ?? ""));
    if (cached && sameApplied(this.#applied.get(ownerKey), childKey, digest + versionOf(cached))) {
      this.#skipped++;
      return;
    }
    const result = await applyOwned<KubeObject>(this.#client, type, owner, child, o);
    // The rest of this reconcile reads what it wrote, and the watch's echo of it wakes no one.
    this.#cache.informer(type).applyWritten(result);
    this.#written++;
    // Read again: other children of the owner may have been applied during the write.
    const lines = this.#applied.get(ownerKey);
    const kept = lines === undefined ? [] : lines.split("\n").filter((l) => !isLineOf(l, childKey));
    kept.push(`${childKey} ${digest}${versionOf(result)}`);
    this.#applied.set(lines === undefined ? flatString(ownerKey) : ownerKey, flatString(kept.join("\n")));
  }

  /** Drops what was remembered for a deleted owner. */
  forget(ownerKey: ObjectKey): void {
    this.#applied.delete(ownerKey);
  }

  get stats(): { written: number; skipped: number; owners: number } {
    return { written: this.#written, skipped: this.#skipped, owners: this.#applied.size };
  }
}

function isLineOf(line: string, childKey: string): boolean {
  return line.length > childKey.length && line.startsWith(childKey) && line[childKey.length] === " ";
}

/** Whether the owner's lines say `childKey` was applied as `applied` (digest and version). */
function sameApplied(lines: string | undefined, childKey: string, applied: string): boolean {
  if (lines === undefined) return false;
  for (let at = 0; at < lines.length; ) {
    let end = lines.indexOf("\n", at);
    if (end < 0) end = lines.length;
    if (lines.startsWith(childKey, at) && lines[at + childKey.length] === " ") {
      const from = at + childKey.length + 1;
      return end - from === applied.length && lines.startsWith(applied, from);
    }
    at = end + 1;
  }
  return false;
}
