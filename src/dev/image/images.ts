// The two images built from the one root filesystem, as data: what each runs, as whom, where.
// The Helm chart gives the operator image only arguments (`controller ...`, `api ...`), and the
// Orchestrator controller gives node pods only go-livepeer flags (`-config /etc/livepeer/...`):
// the entrypoints below supply the rest, as go-livepeer's own image does. The Dockerfile at the
// repository root describes the same operator image for registries.
import type { ImageConfig } from "./archive.ts";
import { NONROOT } from "./debian-rootfs.ts";

export const NODE_BINARY = "/usr/local/bin/node";
export const APP_DIR = "/app";
export const CLI_MAIN = `${APP_DIR}/dist/cli/main.js`;

export const OPERATOR_REPOSITORY = "livepeer-operator";
export const SIMULATOR_REPOSITORY = "livepeer-node-simulator";

/** PATH as every base image sets it (a runtime's default is not guaranteed); production mode. */
const ENV = ["PATH=/usr/local/bin:/usr/bin:/bin", "NODE_ENV=production"];

export interface ImageSpec {
  repository: string;
  config: ImageConfig;
}

/** Controller, API and the other subcommands; non-root, as the chart's securityContext demands. */
/** `commit`: the git commit the image is built from (label org.opencontainers.image.revision). */
export function operatorImage(version: string, commit: string): ImageSpec {
  return {
    repository: OPERATOR_REPOSITORY,
    config: {
      entrypoint: [NODE_BINARY, CLI_MAIN],
      cmd: ["help"],
      env: ENV,
      workingDir: APP_DIR,
      user: `${NONROOT.uid}:${NONROOT.gid}`,
      labels: {
        "org.opencontainers.image.title": OPERATOR_REPOSITORY,
        "org.opencontainers.image.version": version,
        "org.opencontainers.image.revision": commit,
        "org.opencontainers.image.description": "livepeer-operator: controller, webhook API and tools",
      },
    },
  };
}

/**
 * The go-livepeer stand-in for node pods on a real node. `--pod-network` binds the flags' own
 * addresses (0.0.0.0:7935), right in the pod's network namespace. It runs as root like
 * go-livepeer's image: the StatefulSet mounts the keystore Secret 0400 and sets no fsGroup.
 */
export function simulatorImage(version: string, commit: string): ImageSpec {
  return {
    repository: SIMULATOR_REPOSITORY,
    config: {
      entrypoint: [NODE_BINARY, CLI_MAIN, "node-sim", "--pod-network"],
      env: ENV,
      workingDir: APP_DIR,
      user: "0:0",
      labels: {
        "org.opencontainers.image.title": SIMULATOR_REPOSITORY,
        "org.opencontainers.image.version": version,
        "org.opencontainers.image.revision": commit,
        "org.opencontainers.image.description":
          "livepeer-operator's node simulator standing in for go-livepeer (every JSON answer says Simulated: true)",
        "livepeer.org/simulated": "true",
      },
    },
  };
}

/** `docker import --change` instructions for the same config. */
export function dockerImportChanges(config: ImageConfig): string[] {
  const changes: string[] = [];
  if (config.entrypoint) changes.push(`ENTRYPOINT ${JSON.stringify(config.entrypoint)}`);
  if (config.cmd) changes.push(`CMD ${JSON.stringify(config.cmd)}`);
  for (const env of config.env ?? []) {
    const eq = env.indexOf("=");
    changes.push(`ENV ${env.slice(0, eq)}=${JSON.stringify(env.slice(eq + 1))}`);
  }
  if (config.workingDir) changes.push(`WORKDIR ${config.workingDir}`);
  if (config.user) changes.push(`USER ${config.user}`);
  for (const [key, value] of Object.entries(config.labels ?? {})) {
    changes.push(`LABEL ${JSON.stringify(key)}=${JSON.stringify(value)}`);
  }
  return changes;
}
