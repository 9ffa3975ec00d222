// Names of an Orchestrator's children: one place, so builders, status and tests agree.
export const childNames = (name: string) => ({
  statefulSet: name,
  transcoders: `${name}-transcoder`,
  config: `${name}-config`,
  transcoderConfig: `${name}-transcoder-config`,
  /** Public service address (type from the spec): the node's service port only. */
  service: name,
  /** Cluster-internal: the CLI/status port, which can change a running node, is never public. */
  cliService: `${name}-cli`,
  /** Governing headless Service of the StatefulSet; lists pods before they are Ready. */
  podsService: `${name}-pods`,
  orchSecret: `${name}-orch-secret`,
});

export const PORTS = { service: 8935, cli: 7935, transcoderCli: 6935 } as const;

/** The label every child (and pod) carries, so caches can select exactly what we made. */
export const MANAGED_BY = { label: "app.kubernetes.io/managed-by", value: "livepeer-operator" } as const;

/** Labels every child carries; `app.kubernetes.io/instance` selects one Orchestrator's pods. */
export function childLabels(name: string, component: "orchestrator" | "transcoder"): Record<string, string> {
  return {
    "app.kubernetes.io/name": "livepeer",
    "app.kubernetes.io/instance": name,
    "app.kubernetes.io/component": component,
    [MANAGED_BY.label]: MANAGED_BY.value,
  };
}

export const MOUNTS = {
  config: "/etc/livepeer",
  configFile: "/etc/livepeer/livepeer.conf",
  keystore: "/var/run/secrets/livepeer/keystore",
  orchSecret: "/var/run/secrets/livepeer/orch-secret",
  data: "/data",
} as const;
