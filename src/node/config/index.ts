// go-livepeer's flags: one table, parsed from and rendered to the command line, the LP_*
// environment and the plain config file, resolved with the node's precedence, and validated.
export type { HostPort, NodeAddresses } from "./addresses.ts";
export { DEFAULT_PORTS, defaultAddr, formatHostPort, nodeAddresses, servicePort } from "./addresses.ts";
export type { ParsedArgv, ParsedFlags } from "./argv.ts";
export { parseArgv, renderArgv } from "./argv.ts";
export type { RenderConfigFileOptions } from "./config-file.ts";
export { parseConfigFile, renderConfigFile } from "./config-file.ts";
export type { Environment } from "./env.ts";
export { envName, parseEnv } from "./env.ts";
export type { FlagOrigin } from "./errors.ts";
export { FlagParseError } from "./errors.ts";
export type { FlagName, FlagSpec, FlagType, FlagValue, FlagValues, NodeFlags } from "./flag-table.ts";
export { canonicalName, FLAG_NAMES, FLAG_TABLE, flagSpec, isFlagName } from "./flag-table.ts";
export {
  FLAG_SINCE,
  flagNamesInArgs,
  flagSince,
  flagsMissingInRelease,
  isGoLivepeerImage,
  type NodeVersionVerdict,
  nodeVersionOf,
  nodeVersionSupport,
  SUPPORTED_NODE_VERSIONS,
} from "./flag-versions.ts";
export {
  BUILT_IN_CONTROLLERS,
  DEVNET,
  isOnChain,
  needsEthController,
  OFFCHAIN,
} from "./networks.ts";
export { passwordFileProblem } from "./password-file.ts";
export type { FlagProblem } from "./problem.ts";
export { flagBool, flagText, isGiven } from "./read.ts";
export type { ResolvedFlags, ResolveInput } from "./resolve.ts";
export { configFilePath, resolveFlags } from "./resolve.ts";
export type { NodeRole } from "./roles.ts";
export { roleOf, rolesGiven } from "./roles.ts";
export { isLocalOrInCluster } from "./rules/chain.ts";
export { PRICE_PATTERN } from "./rules/price.ts";
export { FLAG_RULES, formatProblem, hasErrors, validateFlags } from "./validate.ts";
export { formatValue, parseValue } from "./values.ts";
