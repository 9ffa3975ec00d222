// kwok runs no probes: its pods are Ready as soon as they run. A real AI runner pod is not Ready
// while its model loads, because its startupProbe (GET /health) fails until the runner binds its
// port, and the operator's status says "loading the model" from exactly that. So the fleet plays
// the kubelet's part for the pods it serves: Ready=False from the start, True once the startupProbe's
// endpoint answers 200-399, as the kubelet sets the pod's Ready and ContainersReady conditions.
import { setTimeout as delay } from "node:timers/promises";
import { type CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from "@kubernetes/client-node";

/** Probing this often, not every periodSeconds (5 s): a local run should not wait for the period. */
const PROBE_EVERY_MS = 250;

/** The URL the pod's first container's startupProbe asks (plain-HTTP httpGet only), on the pod's IP. */
export function startupProbeUrl(pod: V1Pod): string | undefined {
  const container = pod.spec?.containers[0];
  const get = container?.startupProbe?.httpGet;
  const ip = pod.status?.podIP;
  if (!get || !ip || (get.scheme && get.scheme !== "HTTP")) return undefined;
  const port =
    typeof get.port === "number"
      ? get.port
      : container?.ports?.find((p) => p.name === get.port)?.containerPort;
  if (port === undefined) return undefined;
  return `http://${ip}:${port}${get.path ?? "/"}`;
}

/** The pod status (strategic merge) the kubelet writes when the pod's containers become (un)ready. */
export function readinessPatch(pod: V1Pod, ready: boolean, at: Date) {
  const container = pod.spec?.containers[0]?.name ?? "";
  // null removes the reason and message a not-ready condition carried.
  const why = ready
    ? { reason: null, message: null }
    : { reason: "ContainersNotReady", message: `containers with unready status: [${container}]` };
  return {
    status: {
      conditions: ["Ready", "ContainersReady"].map((type) => ({
        type,
        status: ready ? "True" : "False",
        lastTransitionTime: at.toISOString(),
        ...why,
      })),
    },
  };
}

/**
 * Marks the pod not Ready, probes its startupProbe endpoint until it answers, then marks it Ready.
 * Returns at once for a pod without an HTTP startupProbe; stops when `signal` aborts.
 */
export async function playStartupProbe(core: CoreV1Api, pod: V1Pod, signal: AbortSignal): Promise<void> {
  const url = startupProbeUrl(pod);
  if (!url) return;
  const mark = (ready: boolean) =>
    core.patchNamespacedPodStatus(
      {
        name: pod.metadata!.name!,
        namespace: pod.metadata!.namespace!,
        body: readinessPatch(pod, ready, new Date()),
      },
      setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
    );
  await mark(false);
  while (!signal.aborted) {
    const answered = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(1_000)]) }).then(
      async (res) => {
        await res.body?.cancel();
        return res.status >= 200 && res.status < 400;
      },
      () => false,
    );
    if (answered) return void (await mark(true));
    await delay(PROBE_EVERY_MS, undefined, { signal }).catch(() => undefined);
  }
}
