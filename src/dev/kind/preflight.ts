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
      why: `no kind node image: ${f.nodeImage} could not be had (${f.nodeImageError.trim().split("\n")[0]}); with LPO_KIND_NODE_IMAGE unset kind's stock image (versions.json: kindNodeImage) is pulled where the Docker can, else the image is built here (Debian rootfs via mmdebstrap: apt-get install mmdebstrap, as root); with it set, the named image is pulled or must be loaded with 'docker load' ${skipHint}`,
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

/** What decides whose Docker the kind tier uses. */
export interface DockerFacts {
  /** DOCKER_HOST as set by the user (empty counts as unset). */
  dockerHost?: string;
  /** The docker CLI's default daemon (its context, or /var/run/docker.sock) answered `docker info`. */
  defaultAnswers: boolean;
  root: boolean;
  /** dpkg and apt-get are there (a Debian-based machine: we can install docker.io). */
  debian: boolean;
  /** `nsenter` and `ip` (util-linux, iproute2): the network namespace of our own. */
  netnsTools: boolean;
}

export type DockerChoice = { use: "user"; why: string } | { use: "private" } | { use: "none"; why: string };

/**
 * The user's Docker when there is one (DOCKER_HOST set, or the default daemon answers); otherwise
 * a Docker of the project's own, which takes root, apt (Debian's docker.io) and netns tools.
 */
export function dockerChoice(f: DockerFacts): DockerChoice {
  if (f.dockerHost) return { use: "user", why: `DOCKER_HOST=${f.dockerHost}` };
  if (f.defaultAnswers) return { use: "user", why: "the docker CLI's default daemon answers" };
  const none = `no usable Docker (DOCKER_HOST is unset and the default daemon, /var/run/docker.sock, does not answer)`;
  if (!f.root) {
    return {
      use: "none",
      why: `${none}, and the project starts a Docker of its own only as root: run as root, or start Docker and set DOCKER_HOST ${skipHint}`,
    };
  }
  if (!f.debian) {
    return {
      use: "none",
      why: `${none}, and this is not a Debian-based machine (no dpkg/apt-get), where the project would install docker.io and mmdebstrap: install Docker and start it, or set DOCKER_HOST ${skipHint}`,
    };
  }
  if (!f.netnsTools) {
    return {
      use: "none",
      why: `${none}, and 'ip' or 'nsenter' is missing for the project's own Docker in a network namespace: apt-get install iproute2 util-linux ${skipHint}`,
    };
  }
  return { use: "private" };
}
