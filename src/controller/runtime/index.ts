// The project's controller-runtime: what reconcilers and the `controller` command import.
export { errorMessage, isConflict, isGone, isNotFound, KubeApiError } from "./api-error.ts";
export {
  adopt,
  applyOwned,
  applyStatus,
  FIELD_MANAGER,
  retryOnConflict,
  STATUS_FIELD_MANAGER,
  updateWithRetry,
  withOwner,
} from "./apply.ts";
export { ChildApplier } from "./child-applier.ts";
export {
  type Condition,
  type ConditionStatus,
  type ConditionUpdate,
  conditionTime,
  ensureConditions,
  findCondition,
  isConditionTrue,
  setCondition,
  statusChanged,
  validateReason,
} from "./conditions.ts";
export { EventRecorder, type EventSpec, type EventType, type Recorder } from "./events.ts";
export { dropManagedFields, Informer, type InformerHandlers, type InformerHealth } from "./informer.ts";
export { bodyBytes, KubeClient, type KubeResponse } from "./kube-client.ts";
export { loadKubeConfig, PooledKubeConfig } from "./kube-config.ts";
export { LEADER_ELECTION_DEFAULTS, type LeaderElectionConfig, LeaderElector } from "./leader-election.ts";
export { createLogger, type Logger, silentLogger } from "./log.ts";
export { Manager, type ManagerOptions } from "./manager.ts";
export {
  controllerOf,
  controllerReference,
  type KubeList,
  type KubeObject,
  keyFor,
  keyOf,
  type ObjectKey,
  type ObjectMeta,
  type OwnerReference,
  splitKey,
} from "./objects.ts";
export {
  type CacheReader,
  type CacheSpec,
  type ControllerDefinition,
  done,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  requeueAfter,
  type SetupContext,
  type WatchSpec,
} from "./reconciler.ts";
export * from "./resources.ts";
export { WorkQueue } from "./work-queue.ts";
