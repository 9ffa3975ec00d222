// The custom resources' API group (contract: ARCHITECTURE.md "Resources").
export const GROUP = "livepeer.org";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}` as const;
/** `kubectl get livepeer` lists every resource of the operator. */
export const CATEGORY = "livepeer";

/**
 * The REST resource of one of our kinds, as src/kube names one (its ResourceType): every kind is
 * namespaced, in this group and version.
 */
export function customResourceType(names: { kind: string; plural: string }) {
  return { group: GROUP, version: VERSION, plural: names.plural, kind: names.kind, namespaced: true };
}
