// How a node stand-in says what it is inside the node's own formats: JSON answers carry
// `"Simulated": true` (JSON leaves room for a field), and the version a node advertises in its
// capabilities (protobuf, no room for a field) carries the semver build metadata `+simulated`,
// which version comparisons ignore. Read for the Simulated condition only.
export const SIMULATED_BUILD = "+simulated";

export function saysSimulated(version: string | undefined): boolean {
  return version !== undefined && /\+(.+\.)?simulated(\.|$)/.test(version);
}
