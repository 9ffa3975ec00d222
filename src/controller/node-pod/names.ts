// Names and labels of a node's children: one place, so builders, caches, status and tests agree.

/** The label every child (and pod) carries, so caches can select exactly what we made. */
export const MANAGED_BY = { label: "app.kubernetes.io/managed-by", value: "livepeer-operator" } as const;

/** The children of a node whose children are named after `name`. */
export const nodeChildNames = (name: string) => ({
  statefulSet: name,
  config: `${name}-config`,
  /** The Service whose type the spec chooses: the ports the role publishes. */
  service: name,
  /** Cluster-internal: the CLI/status port, which can change a running node, is never public. */
  cliService: `${name}-cli`,
  /** Governing headless Service of the StatefulSet; lists pods before they are Ready. */
  podsService: `${name}-pods`,
});

export type NodeChildNames = ReturnType<typeof nodeChildNames>;

/** Labels every child carries; `app.kubernetes.io/instance` selects one resource's pods. */
export function nodeLabels(instance: string, component: string): Record<string, string> {
  return {
    "app.kubernetes.io/name": "livepeer",
    "app.kubernetes.io/instance": instance,
    "app.kubernetes.io/component": component,
    [MANAGED_BY.label]: MANAGED_BY.value,
  };
}
