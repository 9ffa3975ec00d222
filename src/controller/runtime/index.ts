// The project's controller-runtime: what makes a controller (work queue, reconcile loop, leader
// election, conditions, events, metrics). The Kubernetes layer it stands on is src/kube.
export { ChildApplier } from "./child-applier.ts";
export {
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
export { LEADER_ELECTION_DEFAULTS, type LeaderElectionConfig, LeaderElector } from "./leader-election.ts";
export { cacheDisagreement, Manager, type ManagerOptions } from "./manager.ts";
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
export {
  type StatusNews,
  type StatusNewsItem,
  type StatusWithNews,
  StatusWriter,
  statusNews,
} from "./status-events.ts";
export type { Verdict } from "./verdict.ts";
export { WorkQueue } from "./work-queue.ts";
