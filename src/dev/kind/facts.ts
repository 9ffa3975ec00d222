// What decides whether kind can run on the Docker we have: the CLI, the daemon, the node image,
// and whether `docker run --privileged` works (kindVerdict in preflight.ts decides).
import { versions } from "../toolchain/binaries.ts";
import { run } from "./exec.ts";
import { ensureNodeImage, isOurNodeImage } from "./node-image/build.ts";
import type { KindFacts } from "./preflight.ts";

const OUR_NODE_IMAGE = "livepeer-operator/kind-node (built locally)";

/** Which node image to use: one named by the user, the stock one if it can be had, or ours. */
export interface NodeImageChoice {
  /** LPO_KIND_NODE_IMAGE: this one, pulled if absent, or nothing. */
  named?: string;
  /** Try kind's stock image (versions.json: kindNodeImage) before building ours: a Docker that can pull. */
  tryStock: boolean;
}

/** The image, present locally or pulled; the pull's output when it could not be had. */
async function present(ref: string, log: (line: string) => void): Promise<string | undefined> {
  if ((await run(["docker", "image", "inspect", ref])).code === 0) return undefined;
  log(`pulling ${ref}`);
  const pull = await run(["docker", "pull", ref], process.env, 300_000);
  return pull.code === 0 ? undefined : pull.out;
}

/**
 * The node image: LPO_KIND_NODE_IMAGE when set; otherwise kind's stock image for our Kubernetes
 * minor where the Docker can pull it, else our own, built here without a registry and cached by
 * its inputs (node-image/build.ts).
 */
async function nodeImageFacts(
  choice: NodeImageChoice,
  log: (line: string) => void,
): Promise<Pick<KindFacts, "nodeImage" | "nodeImageError">> {
  if (choice.named) {
    const error = await present(choice.named, log);
    return error === undefined
      ? { nodeImage: choice.named }
      : { nodeImage: choice.named, nodeImageError: error };
  }
  if (choice.tryStock) {
    const error = await present(versions.kindNodeImage, log);
    if (error === undefined) return { nodeImage: versions.kindNodeImage };
    log(`${versions.kindNodeImage} could not be pulled (${error.trim().split("\n")[0]}): building our own`);
  }
  try {
    return { nodeImage: (await ensureNodeImage(log)).ref };
  } catch (err) {
    return { nodeImage: OUR_NODE_IMAGE, nodeImageError: (err as Error).message };
  }
}

export async function gatherKindFacts(
  choice: NodeImageChoice,
  log: (line: string) => void,
): Promise<KindFacts> {
  const facts: KindFacts = { nodeImage: choice.named ?? OUR_NODE_IMAGE };
  const cli = await run(["docker", "version", "--format", "{{.Client.Version}}"]);
  if (cli.code === 127 || /ENOENT/.test(cli.out)) return facts;
  facts.dockerCli = cli.out.trim().split("\n")[0] ?? "unknown";
  const info = await run(["docker", "info", "--format", "{{.ServerVersion}}"]);
  if (info.code !== 0) return { ...facts, daemonError: info.out };
  const image = await nodeImageFacts(choice, log);
  if (image.nodeImageError) return { ...facts, ...image };
  facts.nodeImage = image.nodeImage;
  // Named, and removed whatever happens: a refused create can leave a container behind.
  const probeName = `lpo-kind-probe-${process.pid}`;
  const probe = await run([
    "docker",
    "run",
    "--rm",
    "--name",
    probeName,
    "--privileged",
    "--entrypoint",
    "true",
    facts.nodeImage,
  ]);
  await run(["docker", "rm", "-f", probeName]);
  return probe.code === 0 ? facts : { ...facts, privilegedError: probe.out };
}

/** On the project's own daemon only: older builds of our node image (a changed input) go. */
export async function pruneOldNodeImages(keep: string, log: (line: string) => void): Promise<void> {
  if (!isOurNodeImage(keep)) return;
  const [repository] = keep.split(":");
  const listed = await run(["docker", "images", repository!, "--format", "{{.Repository}}:{{.Tag}}"]);
  for (const ref of listed.out.split("\n").map((l) => l.trim())) {
    if (!ref || ref === keep || !ref.startsWith(`${repository}:`)) continue;
    log(`removing ${ref} (an older build of the node image)`);
    await run(["docker", "rmi", ref]);
  }
}

export async function imageSize(ref: string): Promise<string> {
  const r = await run(["docker", "image", "inspect", "--format", "{{.Size}}", ref]);
  return r.code === 0 ? `${(Number(r.out.trim()) / 1e9).toFixed(2)} GB` : "unknown size";
}
