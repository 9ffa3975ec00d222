// The node's aiModels.json (pure): each model the operator runs points at its runner Service with
// its generated token; a model with its own url is passed through. Rendered into a Secret, never
// a ConfigMap: the tokens are in it.
import { createHash } from "node:crypto";
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

/**
 * One aiModels.json entry. `tokens` absent renders the file without secrets (what the pod hash
 * covers): drawn tokens left out (never rotated), a user's token as its digest (a new one rolls).
 */
export function modelsFileEntry(
  m: ModelRunner,
  tokens: Readonly<Record<string, string>> | undefined,
): AiModelEntry {
  const { runner: _runnerSpec, ...entry } = m.model;
  if (!m.runner) {
    if (tokens || entry.token === undefined) return entry;
    return {
      ...entry,
      token: `sha256:${createHash("sha256").update(entry.token).digest("hex").slice(0, 16)}`,
    };
  }
  const token = tokens?.[m.runner];
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
  return `${JSON.stringify(
    models.map((m) => modelsFileEntry(m, tokens)),
    null,
    2,
  )}\n`;
}
