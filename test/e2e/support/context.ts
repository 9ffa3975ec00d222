// What the e2e suite needs to know about the cluster it runs against: any cluster in KUBECONFIG
// where the chart is installed. A harness that installed it hands the context over with
// vitest's provide/inject (the real-node harness); anything else (the kind runner, a user's own
// cluster) sets LPO_E2E_* variables. Parsing them is pure, and every refusal names the variable.

export interface Placement {
  /** Where pods that must really run go (GPU nodes with the device plugin). */
  nodeSelector: Record<string, string>;
  tolerations: { key: string; operator: string; effect?: string; value?: string }[];
}

export interface E2eContext {
  kubeconfig: string;
  kubectl: string;
  helm: string;
  chart: string;
  /** The release's namespace and name. */
  namespace: string;
  release: string;
  /** The values file the release was installed with: `helm upgrade` reuses it. */
  valuesFile: string;
  /** The operator image (the suite's receiver pod runs its node binary) and the node simulator's. */
  operatorImage: string;
  simulatorImage: string;
  /** Where the Orchestrator, Gateway and receiver pods go. */
  placement: Placement;
  /**
   * The previous release (releases.json's newest), built from its recorded commit with its own
   * build code and imported into the cluster's nodes: the upgrade scenario installs it. Only a
   * harness that built it sets this (the real-node one, the kind runner); without it that
   * scenario does not run.
   */
  previous?: PreviousRelease;
  /** Where the upgrade scenario keeps the API's SQLite store across its pods: set with `previous`. */
  deliveryStore?: NodeDirectory;
}

/**
 * A directory on the cluster's nodes, writable by the API (uid 65532), that outlives pods: the
 * upgrade scenario's hostPath volume. `node` pins the volume (and so the pod using it) to the node
 * holding the directory; unset, the directory is the same on every node the pod can go to.
 */
export interface NodeDirectory {
  path: string;
  node?: string;
}

export interface PreviousRelease {
  version: string;
  commit: string;
  /** Its chart directory (in its git worktree). */
  chart: string;
  operatorImage: string;
  simulatorImage: string;
}

export const DEFAULT_PLACEMENT: Placement = {
  nodeSelector: { "nvidia.com/gpu.present": "true" },
  tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
};

const REQUIRED = {
  KUBECONFIG: "the kubeconfig of the cluster the chart is installed in",
  LPO_E2E_VALUES: "the values file the chart was installed with (helm upgrade reuses it)",
  LPO_E2E_OPERATOR_IMAGE: "the operator image ref the chart runs, e.g. livepeer-operator:0.1.0",
  LPO_E2E_SIMULATOR_IMAGE: "the node simulator image ref (the chart's nodeImage)",
} as const;

/** The previous release, for the upgrade scenario: all of these or none. */
const PREVIOUS = {
  LPO_E2E_PREVIOUS_VERSION: "its version, as releases.json records it",
  LPO_E2E_PREVIOUS_COMMIT: "the commit it was built from",
  LPO_E2E_PREVIOUS_CHART: "its chart directory",
  LPO_E2E_PREVIOUS_OPERATOR_IMAGE: "its operator image ref, loaded into the nodes",
  LPO_E2E_PREVIOUS_SIMULATOR_IMAGE: "its node simulator image ref, loaded into the nodes",
} as const;

const DELIVERY_STORE =
  "LPO_E2E_DELIVERY_STORE is not set: the upgrade scenario (LPO_E2E_PREVIOUS_* are set) needs a directory on the nodes, writable by uid 65532, for the API's SQLite store";

type Env = Record<string, string | undefined>;
const missing = <K extends string>(env: Env, names: readonly K[]) =>
  names.filter((name) => !env[name]?.trim());

/** The previous release from LPO_E2E_PREVIOUS_*: undefined when none is set, problems when some are. */
function previousFromEnv(env: Env, problems: string[]): PreviousRelease | undefined {
  const names = Object.keys(PREVIOUS) as (keyof typeof PREVIOUS)[];
  const absent = missing(env, names);
  if (absent.length === names.length) return undefined;
  if (absent.length) {
    problems.push(
      ...absent.map(
        (name) =>
          `${name} is not set but other LPO_E2E_PREVIOUS_* are: set it to ${PREVIOUS[name]}, or unset them all to leave the upgrade scenario out`,
      ),
    );
    return undefined;
  }
  return {
    version: env.LPO_E2E_PREVIOUS_VERSION!,
    commit: env.LPO_E2E_PREVIOUS_COMMIT!,
    chart: env.LPO_E2E_PREVIOUS_CHART!,
    operatorImage: env.LPO_E2E_PREVIOUS_OPERATOR_IMAGE!,
    simulatorImage: env.LPO_E2E_PREVIOUS_SIMULATOR_IMAGE!,
  };
}

function deliveryStoreFromEnv(env: Env, problems: string[]): NodeDirectory | undefined {
  const dir = env.LPO_E2E_DELIVERY_STORE?.trim();
  const node = env.LPO_E2E_DELIVERY_STORE_NODE?.trim();
  if (!dir) {
    if (node)
      problems.push("LPO_E2E_DELIVERY_STORE_NODE is set without LPO_E2E_DELIVERY_STORE: set both or neither");
    return undefined;
  }
  if (!dir.startsWith("/")) {
    problems.push(
      `LPO_E2E_DELIVERY_STORE '${dir}' is not an absolute path: give the directory's path on the nodes`,
    );
    return undefined;
  }
  return { path: dir, ...(node && { node }) };
}

/** The context from LPO_E2E_* variables; throws naming every missing or malformed one. */
export function e2eContextFromEnv(env: Env, chart: string): E2eContext {
  const required = Object.keys(REQUIRED) as (keyof typeof REQUIRED)[];
  const problems = missing(env, required).map((name) => `${name} is not set: set it to ${REQUIRED[name]}`);
  const previous = previousFromEnv(env, problems);
  const deliveryStore = deliveryStoreFromEnv(env, problems);
  if (previous && !env.LPO_E2E_DELIVERY_STORE?.trim()) problems.push(DELIVERY_STORE);
  let placement = DEFAULT_PLACEMENT;
  const raw = env.LPO_E2E_PLACEMENT;
  if (raw?.trim()) {
    try {
      const parsed = JSON.parse(raw) as Partial<Placement>;
      if (typeof parsed.nodeSelector !== "object" || !Array.isArray(parsed.tolerations ?? []))
        throw new Error();
      placement = { nodeSelector: parsed.nodeSelector ?? {}, tolerations: parsed.tolerations ?? [] };
    } catch {
      problems.push(
        `LPO_E2E_PLACEMENT is not JSON of the form {"nodeSelector":{...},"tolerations":[...]}: fix it or unset it for ${JSON.stringify(DEFAULT_PLACEMENT.nodeSelector)}`,
      );
    }
  }
  if (problems.length) throw new Error(`the e2e suite cannot run:\n  ${problems.join("\n  ")}`);
  return {
    kubeconfig: env.KUBECONFIG!,
    kubectl: env.LPO_E2E_KUBECTL || "kubectl",
    helm: env.LPO_E2E_HELM || "helm",
    chart: env.LPO_E2E_CHART || chart,
    namespace: env.LPO_E2E_NAMESPACE || "livepeer-system",
    release: env.LPO_E2E_RELEASE || "lpo",
    valuesFile: env.LPO_E2E_VALUES!,
    operatorImage: env.LPO_E2E_OPERATOR_IMAGE!,
    simulatorImage: env.LPO_E2E_SIMULATOR_IMAGE!,
    placement,
    ...(previous && { previous }),
    ...(deliveryStore && { deliveryStore }),
  };
}
