// Resource types the runtime reads, watches and writes, described once (no discovery round trip:
// the operator knows what it manages).
import type { KubeObject } from "./objects.ts";

export interface ResourceType {
  /** "" for the core group. */
  group: string;
  version: string;
  /** Plural, lower case: the URL segment ("secrets", "webhooks"). */
  plural: string;
  kind: string;
  namespaced: boolean;
}

export function apiVersionOf(t: ResourceType): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

/** `secrets`, `webhooks.livepeer.org`: how kubectl and the logs name a resource. */
export function resourceName(t: ResourceType): string {
  return t.group ? `${t.plural}.${t.group}` : t.plural;
}

export function resourcePath(
  t: ResourceType,
  opts: { namespace?: string | undefined; name?: string; subresource?: string } = {},
): string {
  const base = t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`;
  let path = base;
  if (t.namespaced && opts.namespace) path += `/namespaces/${encodeURIComponent(opts.namespace)}`;
  path += `/${t.plural}`;
  if (opts.name !== undefined) path += `/${encodeURIComponent(opts.name)}`;
  if (opts.subresource) path += `/${opts.subresource}`;
  return path;
}

/** Whether `obj` (from an ownerReference's apiVersion/kind) is of type `t`. */
export function isOfType(t: ResourceType, ref: { apiVersion?: string; kind?: string }): boolean {
  return ref.kind === t.kind && ref.apiVersion === apiVersionOf(t);
}

export function typedObject<T extends KubeObject>(t: ResourceType, obj: T): T {
  return { ...obj, apiVersion: apiVersionOf(t), kind: t.kind };
}

export const Secrets: ResourceType = {
  group: "",
  version: "v1",
  plural: "secrets",
  kind: "Secret",
  namespaced: true,
};
export const ConfigMaps: ResourceType = {
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
};
export const Services: ResourceType = {
  group: "",
  version: "v1",
  plural: "services",
  kind: "Service",
  namespaced: true,
};
export const Pods: ResourceType = { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true };
export const Nodes: ResourceType = {
  group: "",
  version: "v1",
  plural: "nodes",
  kind: "Node",
  namespaced: false,
};
export const StatefulSets: ResourceType = {
  group: "apps",
  version: "v1",
  plural: "statefulsets",
  kind: "StatefulSet",
  namespaced: true,
};
export const Deployments: ResourceType = {
  group: "apps",
  version: "v1",
  plural: "deployments",
  kind: "Deployment",
  namespaced: true,
};
export const Leases: ResourceType = {
  group: "coordination.k8s.io",
  version: "v1",
  plural: "leases",
  kind: "Lease",
  namespaced: true,
};
export const Events: ResourceType = {
  group: "events.k8s.io",
  version: "v1",
  plural: "events",
  kind: "Event",
  namespaced: true,
};
export const CustomResourceDefinitions: ResourceType = {
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
};
export const PodDisruptionBudgets: ResourceType = {
  group: "policy",
  version: "v1",
  plural: "poddisruptionbudgets",
  kind: "PodDisruptionBudget",
  namespaced: true,
};
export const NetworkPolicies: ResourceType = {
  group: "networking.k8s.io",
  version: "v1",
  plural: "networkpolicies",
  kind: "NetworkPolicy",
  namespaced: true,
};
export const ServiceAccounts: ResourceType = {
  group: "",
  version: "v1",
  plural: "serviceaccounts",
  kind: "ServiceAccount",
  namespaced: true,
};
export const Roles: ResourceType = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  plural: "roles",
  kind: "Role",
  namespaced: true,
};
export const RoleBindings: ResourceType = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  plural: "rolebindings",
  kind: "RoleBinding",
  namespaced: true,
};
