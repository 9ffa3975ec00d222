// An Orchestrator's AI side: each model's runner pods, the node's aiModels.json, what the status
// says of the models, and what a Gateway learns of the orchestrators' AI capabilities.
export type { ModelRunner } from "./models-file.ts";
export { modelsFileEntry, renderModelsFile } from "./models-file.ts";
export {
  AI_MODELS_FILE,
  aiSecretName,
  RUNNER_COMPONENT,
  RUNNER_CONTAINER,
  RUNNER_LABEL,
  runnerLabels,
  runnerName,
  runnerUrl,
  tokenKey,
} from "./names.ts";
export { type AiPlan, type AiPlanInput, planAi, tokensIn } from "./plan.ts";
export { buildRunner, type Runner, type RunnerInput, runnerReplicas, WEIGHTS_MOUNT } from "./runner.ts";
