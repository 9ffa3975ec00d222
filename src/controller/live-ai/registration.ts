// How the node learns of the runners (pure). Static: go-livepeer's -liveRunnerConfig document
// (ai/runner/live_runner.go StaticLiveRunnerConfig), one entry per runner pod with its own
// runner_url and a root-relative health_url the node polls about every 5 s; label routing with
// the pod's name as label, so the node's GET /discovery names each runner by its pod. Dynamic:
// -useLiveRunners with -orchSecret (a file) and -liveRunnerAddr, the runners heartbeat.
import type { LiveAppSpec } from "../../schema/live-ai.ts";
import { liveAppName, liveRunnerPod, liveRunnerUrl } from "./names.ts";

export interface StaticRunnerEntry {
  label: string;
  routing: "label";
  runner_url: string;
  health_url: string;
  app: string;
  mode: "persistent";
  capacity: number;
  price_info: { price: number; currency: "usd"; unit: string };
}

export interface RegisteredApp {
  app: LiveAppSpec;
  set: string;
  runners: number;
}

export function staticRunnerEntries(apps: readonly RegisteredApp[], namespace: string): StaticRunnerEntry[] {
  return apps.flatMap(({ app, set, runners }) =>
    Array.from({ length: runners }, (_, i) => ({
      label: liveRunnerPod(set, i),
      routing: "label" as const,
      runner_url: liveRunnerUrl(set, i, namespace),
      health_url: "/health",
      app: liveAppName(app.id),
      mode: "persistent" as const,
      // A live-video-to-video runner serves one stream at a time.
      capacity: 1,
      price_info: { price: Number(app.price.usd), currency: "usd" as const, unit: app.price.unit },
    })),
  );
}

/** The -liveRunnerConfig file's text. */
export function renderLiveRunnerConfig(apps: readonly RegisteredApp[], namespace: string): string {
  return `${JSON.stringify({ runners: staticRunnerEntries(apps, namespace) }, null, 2)}\n`;
}
