export type { AiModelEntry, AiModels } from "./entry.ts";
export {
  AiModelEntrySchema,
  AiModelsSchema,
  duplicateModels,
  KNOWN_PIPELINES,
  MODEL_ID_PATTERN,
  modelIdProblem,
  OptimizationFlagsSchema,
} from "./entry.ts";
export type { AiModelsParseResult } from "./parse.ts";
export { checkAiModels, describeIssue, parseAiModels } from "./parse.ts";
