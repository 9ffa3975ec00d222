// Writing to the cluster the way the API conventions ask:
// - children by server-side apply with one field manager (livepeer-operator), force: true (this
//   controller is the authority on the fields it sets), and a controller ownerReference
//   (controller: true, blockOwnerDeletion: true) so the garbage collector removes them with
//   their owner;
// - status through the /status subresource with a second field manager
//   (livepeer-operator-status), so spec writers and status writers never clobber each other;
// - 409 Conflict retried with a short backoff (on a fresh read where the write was based on one).
import { errorMessage, isConflict, isInvalid } from "./api-error.ts";
import { backoffDelay, sleep } from "./backoff.ts";
import type { KubeClient } from "./kube-client.ts";
import { controllerReference, type KubeObject, type OwnerReference } from "./objects.ts";
import type { ResourceType } from "./resources.ts";

export const FIELD_MANAGER = "livepeer-operator";
export const STATUS_FIELD_MANAGER = "livepeer-operator-status";

export interface ConflictRetryOptions {
  attempts?: number;
  signal?: AbortSignal;
  /** Called before each retry (tests and metrics count them). */
  onConflict?: (attempt: number) => void;
}

/** Runs `write` again (up to `attempts` times in all) while it fails with 409 Conflict. */
export async function retryOnConflict<T>(write: () => Promise<T>, o: ConflictRetryOptions = {}): Promise<T> {
  const attempts = o.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (!isConflict(err) || attempt >= attempts || o.signal?.aborted) throw err;
      o.onConflict?.(attempt);
      await sleep(backoffDelay(attempt, { initialMs: 10, maxMs: 500, jitter: 0.5 }), o.signal);
    }
  }
}

/** The child with the owner's controller reference added (other owner references are kept). */
export function withOwner<T extends KubeObject>(owner: KubeObject, child: T): T {
  const ref = controllerReference(owner);
  const others = (child.metadata?.ownerReferences ?? []).filter((r) => r.uid !== ref.uid && !r.controller);
  return {
    ...child,
    metadata: {
      ...child.metadata,
      namespace: child.metadata?.namespace ?? owner.metadata?.namespace,
      ownerReferences: [...others, ref],
    },
  };
}

/** Server-side applies a child owned by `owner` (its namespace unless the child names one). */
export function applyOwned<T extends KubeObject>(
  client: KubeClient,
  type: ResourceType,
  owner: KubeObject,
  child: KubeObject,
  o: ConflictRetryOptions = {},
): Promise<T> {
  const body = withOwner(owner, child);
  const write = () => client.apply<T>(type, body, { fieldManager: FIELD_MANAGER, force: true });
  return retryOnConflict(async () => {
    try {
      return await write();
    } catch (err) {
      const strategy = staleRollingUpdate(err, body);
      if (!strategy) throw err;
      // Once per StatefulSet made with RollingUpdate (by an operator before 0.2.0): the API server
      // defaulted rollingUpdate.partition, which no apply owns, so an apply of another type is
      // refused until a merge patch drops it with the type changed in the same write.
      await client.mergePatch(type, body.metadata?.namespace, body.metadata?.name ?? "", {
        spec: { updateStrategy: { type: strategy, rollingUpdate: null } },
      });
      return write();
    }
  }, o);
}

/**
 * The update strategy to switch to when the API server refused `body` (a StatefulSet whose
 * updateStrategy is not RollingUpdate) for the rollingUpdate block left on the stored object
 * (422: "spec.updateStrategy.rollingUpdate: ... only allowed for updateStrategy 'RollingUpdate'").
 */
export function staleRollingUpdate(err: unknown, body: KubeObject): string | undefined {
  if (body.kind !== "StatefulSet" || !isInvalid(err)) return undefined;
  const type = (body as { spec?: { updateStrategy?: { type?: string } } }).spec?.updateStrategy?.type;
  if (!type || type === "RollingUpdate") return undefined;
  return /spec\.updateStrategy\.rollingUpdate: .*only allowed for updateStrategy 'RollingUpdate'/.test(
    errorMessage(err),
  )
    ? type
    : undefined;
}

/**
 * Server-side applies `status` through the /status subresource. Only the fields given are
 * owned by the status manager; fields other writers set (e.g. lastTriggeredAt) stay theirs.
 */
export function applyStatus<T extends KubeObject>(
  client: KubeClient,
  type: ResourceType,
  obj: KubeObject,
  status: Record<string, unknown>,
  o: ConflictRetryOptions = {},
): Promise<T> {
  const name = obj.metadata?.name;
  if (!name) throw new Error(`applyStatus ${type.kind}: the object has no metadata.name`);
  const body = { metadata: { name, namespace: obj.metadata?.namespace }, status };
  return retryOnConflict(
    () =>
      client.apply<T>(type, body, { fieldManager: STATUS_FIELD_MANAGER, force: true, subresource: "status" }),
    o,
  );
}

/**
 * Read-modify-write with optimistic concurrency: reads the object fresh from the API, lets
 * `mutate` change it (return undefined for "nothing to do"), PUTs it with the resourceVersion
 * read, and starts over on 409.
 */
export function updateWithRetry<T extends KubeObject>(
  client: KubeClient,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  mutate: (current: T) => T | undefined,
  o: ConflictRetryOptions = {},
): Promise<T> {
  return retryOnConflict(async () => {
    const current = await client.get<T>(type, namespace, name);
    const next = mutate(structuredClone(current));
    if (!next) return current;
    return client.replace<T>(type, next);
  }, o);
}

/**
 * Makes `owner` the controller of an existing object that was created for it (merge patch with
 * the resourceVersion read: never creates the object, never overrides another controller).
 * `mayAdopt` is checked on every fresh read. Returns false when adoption was refused.
 */
export async function adopt(
  client: KubeClient,
  type: ResourceType,
  owner: KubeObject,
  namespace: string | undefined,
  name: string,
  mayAdopt: (current: KubeObject) => boolean,
  o: ConflictRetryOptions = {},
): Promise<boolean> {
  const ref = controllerReference(owner);
  return retryOnConflict(async () => {
    const current = await client.get(type, namespace, name);
    const refs: OwnerReference[] = current.metadata?.ownerReferences ?? [];
    if (refs.some((r) => r.uid === ref.uid && r.controller)) return true;
    if (refs.some((r) => r.controller) || !mayAdopt(current)) return false;
    await client.mergePatch(type, namespace, name, {
      metadata: {
        resourceVersion: current.metadata?.resourceVersion,
        ownerReferences: [...refs.filter((r) => r.uid !== ref.uid), ref],
      },
    });
    return true;
  }, o);
}
