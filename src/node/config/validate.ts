// All flag checks, in one list: each rule is a small pure function from the flags to problems.
import type { FlagValues } from "./flag-table.ts";
import { contextOf, type FlagProblem, type FlagRule } from "./problem.ts";
import {
  accountAddress,
  controllerAddress,
  deprecatedNetwork,
  ethUrlScheme,
  onChainRequirements,
} from "./rules/chain.ts";
import { nvidiaDevices } from "./rules/gpu.ts";
import { maxPricePerUnit, pixelsPerUnit, pricePerUnit } from "./rules/price.ts";
import {
  exactlyOneRole,
  gatewayHttpIngest,
  legacyBroadcaster,
  orchestratorWork,
  remoteSignerOnChain,
  serviceAddress,
  workerNeedsOrchestrator,
} from "./rules/role.ts";
import { maxSessions } from "./rules/sessions.ts";
import { aliasAgreement, deprecatedNames, knownNames, valueTypes } from "./rules/shape.ts";

export const FLAG_RULES: readonly FlagRule[] = [
  knownNames,
  valueTypes,
  aliasAgreement,
  deprecatedNames,
  exactlyOneRole,
  remoteSignerOnChain,
  legacyBroadcaster,
  orchestratorWork,
  workerNeedsOrchestrator,
  serviceAddress,
  gatewayHttpIngest,
  maxSessions,
  ethUrlScheme,
  onChainRequirements,
  controllerAddress,
  deprecatedNetwork,
  accountAddress,
  pricePerUnit,
  pixelsPerUnit,
  maxPricePerUnit,
  nvidiaDevices,
];

/** Every problem with these flags, errors first; [] means the node would start as intended. */
export function validateFlags(values: FlagValues): FlagProblem[] {
  const ctx = contextOf(values);
  const problems = FLAG_RULES.flatMap((rule) => rule(ctx));
  return [
    ...problems.filter((p) => p.severity === "error"),
    ...problems.filter((p) => p.severity === "warning"),
  ];
}

export function hasErrors(problems: readonly FlagProblem[]): boolean {
  return problems.some((p) => p.severity === "error");
}

/** "-flag: message (fix: ...)" - one line per problem, for logs and CLI output. */
export function formatProblem(p: FlagProblem): string {
  return `${p.severity}: ${p.message} - ${p.fix}`;
}
