// An Orchestrator's live AI as objects (pure): per app its runner StatefulSet and headless Service
// (as many runners as capacity.ts counts), the registration (static: the -liveRunnerConfig Secret;
// dynamic: the node's flags and the orchestrator secret both sides get), and what of it rolls the
// node pod (the node reads -liveRunnerConfig at start; an app removed is a registration removed).
import type { V1Secret, V1Service, V1StatefulSet } from "@kubernetes/client-node";
import type { StoredOrchestrator } from "../../schema/orchestrator.ts";
import { generatedSecret } from "../node-pod/index.ts";
import type { NodeFacts } from "../node-status/facts.ts";
import { type GpuClaim, type GpuNode, type LiveRunnerCount, liveRunnerCounts } from "./capacity.ts";
import { LIVE_RUNNERS_FILE, liveRunnerSetName, liveRunnersSecretName } from "./names.ts";
import { type RegisteredApp, renderLiveRunnerConfig } from "./registration.ts";
import { buildLiveRunners } from "./runners.ts";

export interface LivePlannedApp extends RegisteredApp {
  count: LiveRunnerCount;
}

export interface LiveAiPlan {
  registration?: "static" | "dynamic";
  apps: LivePlannedApp[];
  statefulSets: V1StatefulSet[];
  services: V1Service[];
  /** Static registration: the -liveRunnerConfig Secret. */
  secret?: V1Secret;
  /** What rolls the node pod: the static config, or the dynamic mode. */
  podInput: string;
  /** Sessions the apps can take at once when every runner is healthy. */
  capacity: number;
}

export interface LiveAiPlanInput {
  orch: StoredOrchestrator;
  nodes: readonly NodeFacts[];
  /** -liveRunnerAddr for dynamic runners: the node's in-cluster URL. */
  orchestratorUrl: string;
  /** The orchestrator secret's Secret and key (dynamic registration). */
  orchSecret: { name: string; key: string };
}

const NONE: LiveAiPlan = { apps: [], statefulSets: [], services: [], podInput: "", capacity: 0 };

/** The GPU nodes the Orchestrator's pods may use (its pool selector), from their GFD labels. */
export function gpuNodesOf(
  nodes: readonly NodeFacts[],
  selector: Record<string, string> | undefined,
): GpuNode[] {
  return nodes
    .filter((n) => Object.entries(selector ?? {}).every(([k, v]) => n.metadata.labels?.[k] === v))
    .flatMap((n) => {
      const labels = n.metadata.labels ?? {};
      const product = labels["nvidia.com/gpu.product"];
      if (!product || labels["nvidia.com/gpu.present"] === "false") return [];
      return [
        { name: n.metadata.name ?? "", product, gpus: Number(labels["nvidia.com/gpu.count"] ?? "1") || 1 },
      ];
    });
}

/** What of the GPUs the Orchestrator's other pods take: its video pod or transcoders, its batch runners. */
export function otherGpuClaims(orch: StoredOrchestrator): GpuClaim[] {
  const { spec } = orch;
  const claims: GpuClaim[] = [];
  const transcoders = spec.transcoders?.replicas ?? 0;
  if (transcoders > 0 && spec.transcoders?.gpu?.count) {
    for (let i = 0; i < transcoders; i++)
      claims.push({
        gpus: spec.transcoders.gpu.count,
        product: spec.transcoders.gpu.product,
        what: `transcoder ${i}`,
      });
  } else if (spec.gpu?.count && !spec.ai?.only) {
    claims.push({ gpus: spec.gpu.count, product: spec.gpu.product, what: "the video pod" });
  }
  for (const m of spec.ai?.models ?? []) {
    if (m.url !== undefined || !m.runner || m.runner.gpus === 0) continue;
    for (let i = 0; i < (m.capacity ?? 1); i++)
      claims.push({ gpus: m.runner.gpus, product: m.runner.gpuProduct, what: `${m.model_id} runner` });
  }
  return claims;
}

export function planLiveAi(i: LiveAiPlanInput): LiveAiPlan {
  const live = i.orch.spec.ai?.live;
  if (!live) return NONE;
  const name = i.orch.metadata?.name ?? "";
  const namespace = i.orch.metadata?.namespace ?? "default";
  const counts = liveRunnerCounts(
    live.apps,
    gpuNodesOf(i.nodes, i.orch.spec.podTemplate?.nodeSelector),
    otherGpuClaims(i.orch),
  );
  const apps = live.apps.map((app, k) => {
    const count = counts[k]!;
    return { app, set: liveRunnerSetName(name, app.id), runners: count.runners, count };
  });
  const dynamic =
    live.registration === "dynamic"
      ? { orchestratorUrl: i.orchestratorUrl, secretName: i.orchSecret.name, secretKey: i.orchSecret.key }
      : undefined;
  const built = apps.map((a) =>
    buildLiveRunners({
      name: a.set,
      namespace,
      orchestrator: name,
      app: a.app,
      runners: a.runners,
      ...(dynamic ? { dynamic } : {}),
      ...(i.orch.spec.podTemplate ? { podTemplate: i.orch.spec.podTemplate } : {}),
    }),
  );
  const config = renderLiveRunnerConfig(apps, namespace);
  const capacity = apps.reduce((sum, a) => sum + a.runners, 0);
  return {
    registration: live.registration,
    apps,
    statefulSets: built.map((b) => b.statefulSet),
    services: built.map((b) => b.service),
    ...(live.registration === "static"
      ? {
          secret: generatedSecret({
            name: liveRunnersSecretName(name),
            namespace,
            values: { [LIVE_RUNNERS_FILE]: config },
          }),
        }
      : {}),
    podInput: live.registration === "static" ? config : `dynamic ${i.orchestratorUrl}`,
    capacity,
  };
}
