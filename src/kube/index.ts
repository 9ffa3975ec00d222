// The Kubernetes layer both servers stand on: one client (one HTTP/2 connection per cluster and
// user), informers and their caches, server-side apply, API errors, resource descriptors and
// object helpers. It knows Kubernetes and nothing of Livepeer, controllers or the webhook API.
export { errorMessage, isConflict, isGone, isNotFound, KubeApiError } from "./api-error.ts";
export {
  adopt,
  applyOwned,
  applyStatus,
  type ConflictRetryOptions,
  FIELD_MANAGER,
  retryOnConflict,
  STATUS_FIELD_MANAGER,
  updateWithRetry,
  withOwner,
} from "./apply.ts";
export { type BackoffOptions, backoffDelay, sleep } from "./backoff.ts";
export {
  type ChangeOrigin,
  dropManagedFields,
  Informer,
  type InformerHandlers,
  type InformerHealth,
} from "./informer.ts";
export { bodyBytes, KubeClient, type KubeResponse } from "./kube-client.ts";
export { loadKubeConfig, PooledKubeConfig } from "./kube-config.ts";
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
export * from "./resources.ts";
