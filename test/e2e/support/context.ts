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
   * harness that built it sets this (the real-node one); without it that scenario does not run.
   */
  previous?: PreviousRelease;
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

/** The context from LPO_E2E_* variables; throws naming every missing or malformed one. */
export function e2eContextFromEnv(env: Record<string, string | undefined>, chart: string): E2eContext {
  const problems = Object.entries(REQUIRED)
    .filter(([name]) => !env[name]?.trim())
    .map(([name, what]) => `${name} is not set: set it to ${what}`);
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
  };
}
