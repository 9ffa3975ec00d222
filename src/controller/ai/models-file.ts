// The node's aiModels.json (pure): each model the operator runs points at its runner Service with
// its generated token; a model with its own url is passed through. Rendered into a Secret, never
// a ConfigMap: the tokens are in it.
import type { AiModelEntry } from "../../node/ai-models/index.ts";
import type { AiModelSpec } from "../../schema/ai.ts";
import { runnerReplicas } from "./runner.ts";

export interface ModelRunner {
  model: AiModelSpec;
  /** The runner Deployment's name; absent for a model with its own url. */
  runner?: string;
  /** What the node dials. */
  url: string;
}

/** One aiModels.json entry; `token` absent renders the file without secrets (for the pod hash). */
export function modelsFileEntry(m: ModelRunner, token: string | undefined): AiModelEntry {
  const { runner: _runnerSpec, ...entry } = m.model;
  if (!m.runner) return entry;
  // The node sends `capacity` requests at once to an external url: one per runner pod.
  return {
    ...entry,
    url: m.url,
    capacity: runnerReplicas(m.model),
    ...(token !== undefined ? { token } : {}),
  };
}

export function renderModelsFile(
  models: readonly ModelRunner[],
  tokens?: Readonly<Record<string, string>>,
): string {
  const entries = models.map((m) => modelsFileEntry(m, m.runner && tokens ? tokens[m.runner] : undefined));
  return `${JSON.stringify(entries, null, 2)}\n`;
}
