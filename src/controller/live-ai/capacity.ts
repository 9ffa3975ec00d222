// How many runners each live app gets (pure): a fixed replicas count, or one per free GPU of the
// nodes the app may use. GPUs are counted per node from GPU Feature Discovery's labels; what the
// orchestrator's video pod, its batch AI runners and the apps listed earlier take is not free.
// The arithmetic is spelled out for the status.
import type { LiveAppSpec } from "../../schema/live-ai.ts";

export interface GpuNode {
  name: string;
  /** nvidia.com/gpu.product */
  product: string;
  /** Physical GPUs (nvidia.com/gpu.count): a live runner takes whole GPUs. */
  gpus: number;
}

/** GPUs something else of this Orchestrator takes (the video pod, batch runners). */
export interface GpuClaim {
  gpus: number;
  /** Pinned to one product; absent: any GPU node. */
  product?: string | undefined;
  what: string;
}

export interface LiveRunnerCount {
  id: string;
  runners: number;
  /** GPUs the runners take (runners x gpus per runner). */
  gpus: number;
  /** How the count was reached, and what does not fit. */
  reason: string;
}

const fits = (node: GpuNode, product: string | undefined) => !product || node.product === product;

/** Takes `gpus` GPUs from the fullest matching nodes, whole runners at a time; what it could not take. */
function take(
  free: Map<string, number>,
  nodes: readonly GpuNode[],
  product: string | undefined,
  perUnit: number,
  units: number,
): number {
  let left = units;
  if (perUnit === 0) return 0;
  const order = nodes
    .filter((n) => fits(n, product))
    .sort((a, b) => (free.get(b.name) ?? 0) - (free.get(a.name) ?? 0));
  for (const n of order) {
    while (left > 0 && (free.get(n.name) ?? 0) >= perUnit) {
      free.set(n.name, (free.get(n.name) ?? 0) - perUnit);
      left--;
    }
  }
  return left;
}

export function liveRunnerCounts(
  apps: readonly LiveAppSpec[],
  nodes: readonly GpuNode[],
  claims: readonly GpuClaim[],
): LiveRunnerCount[] {
  const free = new Map(nodes.map((n) => [n.name, n.gpus]));
  for (const c of claims) take(free, nodes, c.product, c.gpus, 1);
  const claimed = claims.length ? ` after ${claims.map((c) => `${c.what} (${c.gpus} GPU)`).join(", ")}` : "";
  return apps.map((app) => {
    const where = app.gpuProduct ?? "any GPU";
    if (app.onePerGpu) {
      const matching = nodes.filter((n) => fits(n, app.gpuProduct));
      const freeGpus = matching.reduce((sum, n) => sum + (free.get(n.name) ?? 0), 0);
      let runners = 0;
      for (const n of matching) {
        const here = Math.floor((free.get(n.name) ?? 0) / app.gpus);
        runners += here;
        free.set(n.name, (free.get(n.name) ?? 0) - here * app.gpus);
      }
      const reason =
        matching.length === 0
          ? `onePerGpu: no GPU node with ${where} -> 0 runners`
          : `onePerGpu: ${freeGpus} free GPU(s) on ${matching.length} node(s) with ${where}${claimed} / ${app.gpus} per runner = ${runners} runner(s)`;
      return { id: app.id, runners, gpus: runners * app.gpus, reason };
    }
    const runners = app.replicas ?? 1;
    const short = take(free, nodes, app.gpuProduct, app.gpus, runners);
    const reason =
      app.gpus === 0
        ? `replicas ${runners} (no GPU: CPU runners)`
        : short > 0
          ? `replicas ${runners}: only ${runners - short} fit on the free GPUs of the nodes with ${where}${claimed}; ${short} will stay Pending until a GPU frees up`
          : `replicas ${runners} x ${app.gpus} GPU`;
    return { id: app.id, runners, gpus: runners * app.gpus, reason };
  });
}
