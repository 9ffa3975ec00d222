// The custom resources' API group (contract: ARCHITECTURE.md "Resources").
export const GROUP = "livepeer.org";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}` as const;
/** `kubectl get livepeer` lists every resource of the operator. */
export const CATEGORY = "livepeer";
