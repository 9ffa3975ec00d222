// An orchestrator's external AI runners (aiModels.json entries with `url` + `token`), as
// go-livepeer's ai/worker treats them: at start, before any port is bound, each is polled on
// /health every 500 ms (5 s per try) until it answers 200 with a status other than ERROR, for at
// most 2 minutes (docker.go externalContainerTimeout); then /hardware/info and /version are read.
// Jobs go to the runner with `Authorization: Bearer <token>`, concurrently up to the model's capacity.
import { goClientError } from "../gateway/orchestrator-pool.ts";
import type { SimulatedAiModel } from "../node-model.ts";
import { slogLine } from "./slog.ts";

export const RUNNER_POLL_INTERVAL_MS = 500;
export const RUNNER_HEALTH_TIMEOUT_MS = 5_000;
export const EXTERNAL_RUNNER_TIMEOUT_MS = 2 * 60_000;

export interface ExternalRunner {
  model: SimulatedAiModel & { url: string };
  version: string;
  inFlight: number;
}

/** ai/worker/docker.go dockerContainerName with the URL as suffix. */
export function externalContainerName(pipeline: string, modelId: string, url: string): string {
  return `${pipeline}_${modelId.replace(/[/_]/g, "-")}_${url}`;
}

export class RunnerWarmError extends Error {}

function authHeaders(token: string | undefined): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** ai/worker/container.go runnerWaitUntilReady, then the hardware and version reads of NewRunnerContainer. */
export async function warmExternalRunner(
  model: SimulatedAiModel & { url: string },
  sink: (line: string) => void,
  timeoutMs = EXTERNAL_RUNNER_TIMEOUT_MS,
  signal?: AbortSignal,
): Promise<ExternalRunner> {
  const base = model.url.replace(/\/+$/, "");
  const deadline = Date.now() + timeoutMs;
  let lastError = "context deadline exceeded";
  for (;;) {
    await new Promise((r) => setTimeout(r, RUNNER_POLL_INTERVAL_MS));
    if (signal?.aborted) throw new RunnerWarmError("context canceled");
    if (Date.now() > deadline) throw new RunnerWarmError(`timed out waiting for runner: ${lastError}`);
    try {
      const r = await fetch(`${base}/health`, {
        headers: authHeaders(model.token),
        signal: AbortSignal.timeout(Math.min(RUNNER_HEALTH_TIMEOUT_MS, Math.max(1, deadline - Date.now()))),
      });
      if (r.status !== 200) {
        await r.body?.cancel();
        lastError = `health check failed with status code ${r.status}`;
        continue;
      }
      const body = (await r.json()) as { status?: string };
      if (body.status === "ERROR") throw new RunnerWarmError("runner is in error state");
      break;
    } catch (err) {
      if (err instanceof RunnerWarmError) throw err;
      lastError = goClientError("Get", `${base}/health`, err);
    }
  }
  let version = "0.0.0";
  try {
    const r = await fetch(`${base}/version`, {
      headers: authHeaders(model.token),
      signal: AbortSignal.timeout(5000),
    });
    if (r.status === 200) {
      version = String(((await r.json()) as { version?: unknown }).version ?? version);
      sink(slogLine("INFO", "Started runner with version", [["version", version]]));
    } else {
      sink(
        slogLine("ERROR", "HTTP Status error getting runner version", [
          ["status", r.status],
          ["body", await r.text()],
        ]),
      );
    }
  } catch (err) {
    sink(
      slogLine("ERROR", "Error getting runner version", [
        ["error", goClientError("Get", `${base}/version`, err)],
      ]),
    );
  }
  sink(
    slogLine("INFO", "Starting external container", [
      ["name", externalContainerName(model.pipeline, model.modelId, model.url)],
      ["modelID", model.modelId],
    ]),
  );
  return { model, version, inFlight: 0 };
}

export type RunnerAnswer = { ok: true; body: unknown } | { ok: false; error: string };

/**
 * One job to the runner, as ai/worker/worker.go reports its answers: 400/401/500 ->
 * "<pipeline> container returned <code>: <detail.msg>", 422 -> the whole body.
 */
export async function submitToRunner(
  runner: ExternalRunner,
  body: unknown,
  sink: (line: string) => void,
): Promise<RunnerAnswer> {
  const { pipeline } = runner.model;
  const target = `${runner.model.url.replace(/\/+$/, "")}/${pipeline}`;
  let response: Response;
  try {
    response = await fetch(target, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...authHeaders(runner.model.token) },
      body: JSON.stringify(body),
    });
  } catch (err) {
    return { ok: false, error: goClientError("Post", target, err) };
  }
  const text = await response.text();
  if (response.status === 200) {
    try {
      return { ok: true, body: JSON.parse(text) as unknown };
    } catch {
      return { ok: false, error: "result not in correct format" };
    }
  }
  let compact = text;
  let msg = "";
  try {
    const parsed = JSON.parse(text) as { detail?: { msg?: unknown } };
    compact = JSON.stringify(parsed);
    msg = typeof parsed.detail?.msg === "string" ? parsed.detail.msg : "";
  } catch {
    // not JSON: the generated client leaves JSON<code> empty and the node returns the body as is
    return { ok: false, error: text.trim() || `unexpected status code: ${response.status}` };
  }
  const prefix = `${pipeline} container returned ${response.status}`;
  sink(slogLine("ERROR", prefix, [["err", compact]]));
  return { ok: false, error: response.status === 422 ? `${prefix}: ${compact}` : `${prefix}: ${msg}` };
}
