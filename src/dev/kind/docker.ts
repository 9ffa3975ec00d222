// The kind tier's Docker: the user's when there is one (DOCKER_HOST set, or the default daemon
// answers), otherwise the project's own (src/dev/docker), installed and started here as root. The
// choice is pure (preflight.ts); this gathers its facts and acts on it.
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { ensureDockerPackages } from "../docker/packages.ts";
import { removeNetwork, startPrivateDocker } from "../docker/private-daemon.ts";
import { run } from "./exec.ts";
import { type DockerFacts, dockerChoice } from "./preflight.ts";

export interface KindDocker {
  /** Who runs it, for the log. */
  whose: string;
  /** The project's own daemon (its images are ours to prune). */
  own: boolean;
  /** Where the run's temporary files go: inside our daemon's run directory, so that the next run
   * removes them should this one be killed outright. */
  tempRoot: string;
  /** Commands that reach the cluster's forwarded ports (kind, kubectl, helm, the suite). */
  inNetns(argv: readonly string[]): string[];
  /** Our own daemon: what kind leaves on it removed, the daemon stopped. The user's: nothing. */
  stop(): Promise<void>;
}

export type DockerOutcome = { ok: true; docker: KindDocker } | { ok: false; why: string };

function has(cmd: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function dockerFacts(): Promise<DockerFacts> {
  const { DOCKER_HOST: _ignored, ...withoutHost } = process.env;
  const answers =
    has("docker") &&
    (await run(["docker", "info", "--format", "{{.ServerVersion}}"], withoutHost, 15_000)).code === 0;
  return {
    dockerHost: process.env.DOCKER_HOST || undefined,
    defaultAnswers: answers,
    root: process.getuid?.() === 0,
    debian: has("dpkg-query") && has("apt-get"),
    netnsTools: has("ip") && has("nsenter"),
  };
}

/** Sets DOCKER_HOST for everything after it (kind, the node image build) when the Docker is ours. */
export async function useDocker(log: (line: string) => void): Promise<DockerOutcome> {
  const choice = dockerChoice(await dockerFacts());
  if (choice.use === "none") return { ok: false, why: choice.why };
  if (choice.use === "user") {
    log(`using your Docker (${choice.why})`);
    return {
      ok: true,
      docker: {
        whose: choice.why,
        own: false,
        tempRoot: tmpdir(),
        inNetns: (argv) => [...argv],
        stop: async () => {},
      },
    };
  }
  log(
    "no Docker here: starting the project's own (root, Debian's docker.io, a network namespace of its own)",
  );
  try {
    await ensureDockerPackages((l) => log(`[docker] ${l}`));
    const own = await startPrivateDocker((l) => log(`[docker] ${l}`));
    process.env.DOCKER_HOST = own.dockerHost;
    return {
      ok: true,
      docker: {
        whose: `the project's own dockerd (${own.dockerHost})`,
        own: true,
        tempRoot: own.layout.runDir,
        inNetns: own.inNetns,
        stop: async () => {
          // kind keeps its `kind` network for the next cluster; on our daemon nothing else uses it.
          await removeNetwork(own.dockerHost, "kind");
          await own.stop();
          delete process.env.DOCKER_HOST;
        },
      },
    };
  } catch (err) {
    return {
      ok: false,
      why: `the project's own Docker did not start: ${(err as Error).message.trim()}\n(fix that, or start Docker yourself and set DOCKER_HOST; to skip the kind tier on purpose, set LPO_SKIP_KIND=1)`,
    };
  }
}
