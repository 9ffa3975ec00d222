// The node doctor: a catalog of what goes wrong with Livepeer nodes, a streaming log classifier
// and pure checks for the conditions read from metrics, endpoints and the chain.
export { CATALOG, CATALOG_BY_ID, catalogEntry } from "./catalog.ts";
export type { ClassifierOptions } from "./classifier.ts";
export { ConditionMatcher, classifyLines, LogClassifier } from "./classifier.ts";
export type { GpuMemory, OrchestratorPrice } from "./evaluators.ts";
export {
  gatewayUnfunded,
  gpuMemoryHigh,
  passwordTrailingNewline,
  paymentCreateErrorsRising,
  priceCapTooLow,
  sessionLimitReached,
  videoOnlyOrchestrator,
} from "./evaluators.ts";
export { linesOf } from "./lines.ts";
export type { CatalogEntry, Clearing, Finding, LogFinding, Recognition, Severity } from "./types.ts";
export { SEVERITY_ORDER } from "./types.ts";
