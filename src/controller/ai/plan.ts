// An Orchestrator's AI side as objects (pure): per model its runner Deployment and Service (or the
// url it names), the Secret with the node's aiModels.json and the runners' tokens, and what of it
// the node pod's hash covers. Tokens are drawn once and kept: the reconciler passes the ones the
// Secret holds.
import type { V1Deployment, V1Secret, V1Service } from "@kubernetes/client-node";
import { AI_RUNNER_PORT } from "../../schema/ai.ts";
import type { StoredOrchestrator } from "../../schema/orchestrator.ts";
import { generatedSecret } from "../node-pod/index.ts";
import { type ModelRunner, renderModelsFile } from "./models-file.ts";
import { AI_MODELS_FILE, aiSecretName, runnerName, runnerUrl, tokenKey } from "./names.ts";
import { buildRunner } from "./runner.ts";

export interface AiPlan {
  models: ModelRunner[];
  deployments: V1Deployment[];
  services: V1Service[];
  /** Absent when the Orchestrator serves no AI. */
  secret?: V1Secret;
  /** aiModels.json without tokens: a change rolls the node pod (the node reads the file at start). */
  podInput: string;
}

export interface AiPlanInput {
  orch: StoredOrchestrator;
  /** The tokens the Secret already holds, by runner name. */
  tokens: Readonly<Record<string, string>>;
  newToken: () => string;
}

export function planAi(i: AiPlanInput): AiPlan {
  const name = i.orch.metadata?.name ?? "";
  const namespace = i.orch.metadata?.namespace ?? "default";
  const specModels = i.orch.spec.ai?.models ?? [];
  if (specModels.length === 0) return { models: [], deployments: [], services: [], podInput: "" };
  const models: ModelRunner[] = specModels.map((model) => {
    if (model.url !== undefined) return { model, url: model.url };
    const runner = runnerName(name, model.pipeline, model.model_id);
    return { model, runner, url: runnerUrl(runner, namespace, AI_RUNNER_PORT) };
  });
  const built = models.flatMap((m) =>
    m.runner
      ? [
          buildRunner({
            name: m.runner,
            namespace,
            orchestrator: name,
            model: m.model,
            ...(i.orch.spec.podTemplate ? { podTemplate: i.orch.spec.podTemplate } : {}),
          }),
        ]
      : [],
  );
  const tokens: Record<string, string> = {};
  for (const m of models) if (m.runner) tokens[m.runner] = i.tokens[m.runner] ?? i.newToken();
  const secret = generatedSecret({
    name: aiSecretName(name),
    namespace,
    values: {
      [AI_MODELS_FILE]: renderModelsFile(models, tokens),
      ...Object.fromEntries(Object.entries(tokens).map(([runner, token]) => [tokenKey(runner), token])),
    },
  });
  return {
    models,
    deployments: built.map((b) => b.deployment),
    services: built.map((b) => b.service),
    secret,
    podInput: renderModelsFile(models),
  };
}

/** The runners' tokens a stored Secret holds (its data is base64). */
export function tokensIn(data: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(data ?? {})) {
    if (key.endsWith(".token"))
      out[key.slice(0, -".token".length)] = Buffer.from(value, "base64").toString("utf8");
  }
  return out;
}
