// The reconciler contract (controller-runtime's): given a key, read current state from the cache,
// converge, and say "done", "again after T", or throw (retried with per-key backoff). Never
// assume which event caused the call: level-based, idempotent, safe to run twice.

import type { Informer } from "../../kube/informer.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import type { KubeObject, ObjectKey } from "../../kube/objects.ts";
import type { ResourceType } from "../../kube/resources.ts";
import type { IndexFunc } from "../../kube/store.ts";
import type { Logger } from "../../process/log.ts";
import type { EventRecorder } from "./events.ts";
import type { FindingsMetrics } from "./metrics.ts";

export type ReconcileResult =
  | { done: true }
  /** Reconcile again after this many ms (the per-key failure backoff is reset). */
  | { requeueAfter: number }
  /** Reconcile again soon, paced by the rate limiter, without counting as an error. */
  | { requeue: true };

export const done: ReconcileResult = { done: true };
export const requeueAfter = (ms: number): ReconcileResult => ({ requeueAfter: ms });

export interface ReconcileContext {
  /** Aborted when the controller stops (shutdown, lost leadership): pass it to slow calls. */
  signal: AbortSignal;
  /** How many times this key has failed in a row (0 on a fresh attempt). */
  attempt: number;
  log: Logger;
}

export interface Reconciler {
  reconcile(key: ObjectKey, ctx: ReconcileContext): Promise<ReconcileResult>;
}

/** Read access to the manager's caches (informer stores). */
export interface CacheReader {
  get<T extends KubeObject>(t: ResourceType, key: ObjectKey): T | undefined;
  list<T extends KubeObject>(t: ResourceType, namespace?: string): T[];
  byIndex<T extends KubeObject>(t: ResourceType, index: string, value: string): T[];
  informer<T extends KubeObject>(t: ResourceType): Informer<T>;
}

export interface SetupContext {
  client: KubeClient;
  cache: CacheReader;
  events: EventRecorder;
  log: Logger;
  /**
   * Puts a key of this controller's primary resource on its queue, for changes no informer
   * sees (a node's endpoint stops answering); a no-op while this replica does not lead.
   */
  enqueue(key: ObjectKey): void;
  /** The findings gauge (absent: not exported, e.g. in a unit test). */
  findings?: FindingsMetrics;
}

/** How a controller wants a resource cached; shared informers must agree on the transform. */
export interface CacheSpec<T extends KubeObject = KubeObject> {
  resource: ResourceType;
  /** E.g. keep a Secret's key names but never its values. */
  transform?: (obj: T) => T;
  /**
   * Cache only the objects carrying these labels (e.g. `app.kubernetes.io/managed-by=...` for
   * children), so memory follows what the operator made, not everything in the cluster.
   */
  labelSelector?: string;
  /**
   * Cache only these namespaces instead of the manager's (e.g. Secrets only where the operator
   * keeps the ones it must watch, so it needs no list/watch on Secrets anywhere else).
   */
  namespaces?: readonly string[];
  indexes?: Record<string, IndexFunc<T>>;
}

/** A non-owned resource whose events wake primary objects (e.g. a Secret -> Webhooks using it). */
export interface WatchSpec {
  resource: ResourceType;
  map(obj: KubeObject, cache: CacheReader): ObjectKey[];
}

/** One entry of src/controller/controllers.ts. */
export interface ControllerDefinition {
  /** Metric label, queue name, log component: lower case, e.g. "webhook". */
  name: string;
  /** The primary resource (events on it enqueue its own key). */
  resource: ResourceType;
  /** Children carrying an ownerReference with controller: true: events enqueue the owner. */
  owns?: ResourceType[];
  watches?: WatchSpec[];
  cache?: CacheSpec[];
  /** Concurrent reconciles (default: the manager's --workers). */
  workers?: number;
  /** Every primary object is reconciled at least this often (default 10 min). */
  resyncPeriodMs?: number;
  setup(ctx: SetupContext): Reconciler;
}
