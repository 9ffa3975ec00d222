// Node pods by role: one pure builder for every node the operator runs (orchestrator, transcoder,
// gateway), each role a value of NodePodRole.
export { buildNodePod, type NodePod, type NodePodInput, nodeImageOf } from "./build.ts";
export { type ChainFlagsSpec, chainFlags, type DevnetChain } from "./chain-flags.ts";
export { generatedSecret, newSecretValue } from "./generated-secret.ts";
export { MOUNTS, type SecretMount } from "./mounts.ts";
export { MANAGED_BY, type NodeChildNames, nodeChildNames, nodeLabels } from "./names.ts";
export type { NodePlacement, NodePodRole, RenderedNode, RolePort } from "./role.ts";
export type { PublicService, ServiceType } from "./services.ts";
export type { StorageSpec } from "./stateful-set.ts";
