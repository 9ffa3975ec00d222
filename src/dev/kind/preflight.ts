// Whether the kind tier can run here, and if not, exactly why and what to do. Pure: facts in,
// a verdict out; run.ts gathers the facts.
import { refusedPrivileged } from "./sandbox-docker.ts";

export interface KindFacts {
  /** `docker version --format ...`'s client answer, undefined when there is no docker CLI. */
  dockerCli?: string;
  /** `docker info`'s failure, undefined when the daemon answered. */
  daemonError?: string;
  nodeImage: string;
  /** Set when the node image is neither present nor pullable: docker's last words. */
  nodeImageError?: string;
  /** `docker run --privileged <node image> true`'s failure, undefined when it ran. */
  privilegedError?: string;
}

export type KindVerdict = { run: true; sandboxDocker: boolean } | { run: false; why: string };

export const SKIP_VARIABLE = "LPO_SKIP_KIND";

const skipHint = `(to skip the kind tier on purpose, set ${SKIP_VARIABLE}=1)`;

export function kindVerdict(f: KindFacts): KindVerdict {
  if (!f.dockerCli) {
    return {
      run: false,
      why: `no docker CLI on PATH: install Docker (Debian: apt-get install docker.io) ${skipHint}`,
    };
  }
  if (f.daemonError) {
    return {
      run: false,
      why: `the Docker daemon does not answer (${f.daemonError.trim().split("\n")[0]}): start it (systemctl start docker, or dockerd & as root) ${skipHint}`,
    };
  }
  if (f.nodeImageError) {
    return {
      run: false,
      why: `no kind node image: ${f.nodeImage} could not be had (${f.nodeImageError.trim().split("\n")[0]}); with LPO_KIND_NODE_IMAGE unset the image is built here (Debian rootfs via mmdebstrap: apt-get install mmdebstrap, as root); with it set, the named image is pulled or must be loaded with 'docker load' ${skipHint}`,
    };
  }
  if (f.privilegedError && !refusedPrivileged(f.privilegedError)) {
    return {
      run: false,
      why: `docker run --privileged ${f.nodeImage} fails: ${f.privilegedError.trim().split("\n")[0]} ${skipHint}`,
    };
  }
  return { run: true, sandboxDocker: !!f.privilegedError };
}
