// Names of an Orchestrator's children: one place, so builders, status and tests agree.
import { nodeChildNames } from "../node-pod/index.ts";

export { MANAGED_BY } from "../node-pod/index.ts";

export const childNames = (name: string) => ({
  ...nodeChildNames(name),
  /** Split setup: the transcoders' StatefulSet; its ConfigMap is `<name>-transcoder-config`. */
  transcoders: `${name}-transcoder`,
  transcoderConfig: `${name}-transcoder-config`,
  orchSecret: `${name}-orch-secret`,
});

export const PORTS = { service: 8935, cli: 7935, transcoderCli: 6935 } as const;

/** The key of the split setup's orchestrator secret (the file transcoders read it from). */
export const ORCH_SECRET_KEY = "secret";
