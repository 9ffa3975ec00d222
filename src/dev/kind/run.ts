// `npm run test:kind`: the e2e suite (test/e2e) on a kind cluster, as named steps in order. Where
// kind cannot run it says exactly why and exits 1, unless LPO_SKIP_KIND=1 asks to skip it; what it
// started (the cluster, the project's own Docker, its temporary directory) goes on every exit,
// signals included.
import { mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { stopPid } from "../../process/pids.ts";
import { buildImages } from "../image/build.ts";
import { buildPreviousRelease } from "../image/previous-release.ts";
import { ensureBinaries } from "../toolchain/binaries.ts";
import { createCluster, kindCluster, loadImages, workerNodes } from "./cluster.ts";
import { prepareDeliveryStore } from "./delivery-store.ts";
import { useDocker } from "./docker.ts";
import { gatherKindFacts, imageSize, pruneOldNodeImages } from "./facts.ts";
import { isOurNodeImage } from "./node-image/build.ts";
import { kindVerdict, SKIP_VARIABLE } from "./preflight.ts";
import { helmInstall, installDevicePlugin } from "./release.ts";
import { runSuite } from "./suite.ts";

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(0)} s`;
const log = (line: string) => process.stderr.write(`[kind +${elapsed()}] ${line}\n`);

class NotRun extends Error {}

/** Undone in reverse order, once, whether we finish, fail or are signalled (both may race: one promise). */
const undo: (() => Promise<void>)[] = [];
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of undo.splice(0).reverse()) {
      await step().catch((err: Error) => log(`cleanup: ${err.message}`));
    }
  })();
  return cleaning;
}
let signalled: string | undefined;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.once(signal, () => {
    signalled = signal;
    log(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

async function main(): Promise<number> {
  if (process.env[SKIP_VARIABLE] === "1") {
    log(`skipped on purpose (${SKIP_VARIABLE}=1): the kind tier did not run`);
    return 0;
  }
  // 1. Docker: the user's, or the project's own (installed and started here).
  const docker = await useDocker(log);
  if (!docker.ok) throw new NotRun(docker.why);
  undo.push(() => docker.docker.stop());
  const inNetns = docker.docker.inNetns;

  // 2. The node image (LPO_KIND_NODE_IMAGE; else kind's stock one where Docker can pull, else
  // ours, built here) and whether kind can run. Our own Docker's namespace reaches no registry.
  const facts = await gatherKindFacts(
    { named: process.env.LPO_KIND_NODE_IMAGE || undefined, tryStock: !docker.docker.own },
    log,
  );
  const verdict = kindVerdict(facts);
  if (!verdict.run) throw new NotRun(verdict.why);
  const nodeImage = facts.nodeImage;
  if (docker.docker.own) await pruneOldNodeImages(nodeImage, log);
  log(`node image ${nodeImage} (${await imageSize(nodeImage)}) on ${docker.docker.whose} after ${elapsed()}`);
  if (verdict.sandboxDocker)
    log("docker run --privileged is refused here: kind runs through the sandbox wrapper");

  // 3. kind, helm and kubectl (pinned, cached), a temporary directory.
  const bin = await ensureBinaries(["kind", "helm", "kubectl"], log);
  const work = mkdtempSync(path.join(docker.docker.tempRoot, "lpo-kind-"));
  undo.push(async () => rmSync(work, { recursive: true, force: true }));

  // The upgrade scenario's delivery store, a directory here that the workers mount.
  const store = prepareDeliveryStore(work);

  // 4. The cluster: 1 control plane + 2 GPU workers, deleted on every exit.
  const cluster = await kindCluster({ ...bin, inNetns, sandboxDocker: verdict.sandboxDocker }, work);
  undo.push(() => {
    log(`kind delete cluster --name ${cluster.name}`);
    return cluster.delete();
  });
  log(`kind create cluster --name ${cluster.name} (1 control plane + 2 GPU workers)`);
  // Our images build meanwhile (kind mostly waits for its nodes to boot), and the previous
  // release's for the upgrade scenario (cached by commit: only a machine's first run builds it).
  const building = buildImages({ log });
  const buildingPrevious = buildPreviousRelease({ log });
  // Awaited below; not unhandled rejections should the cluster fail first.
  building.catch(() => {});
  buildingPrevious.catch(() => {});
  await createCluster(cluster, nodeImage, work, [store]);

  // 5. Our images and the previous release's, the device plugin, the chart.
  const built = await building;
  const previous = await buildingPrevious;
  log(
    `previous release ${previous.version} (${previous.commit.slice(0, 7)}) ${previous.cached ? "cached" : `built in ${previous.seconds.total.toFixed(0)} s`}`,
  );
  await loadImages(
    cluster,
    [built.operator, built.simulator, previous.operator, previous.simulator].map((i) => i.archive),
    log,
  );
  await installDevicePlugin(cluster, built.operator.ref);
  const images = { operator: built.operator.ref, simulator: built.simulator.ref };
  log("helm install");
  const valuesFile = await helmInstall(cluster, bin.helm, inNetns, images, work, isOurNodeImage(nodeImage));
  log(`cluster and release up after ${elapsed()}; running the e2e suite`);

  // 6. The e2e suite.
  const code = await runSuite({
    onStart: (pid) => undo.push(() => stopPid(pid)),
    kubeconfig: cluster.kubeconfig,
    kubectl: bin.kubectl,
    helm: bin.helm,
    valuesFile,
    images,
    previous: {
      version: previous.version,
      commit: previous.commit,
      chart: previous.chart,
      operator: previous.operator.ref,
      simulator: previous.simulator.ref,
    },
    deliveryStore: { path: store.containerPath, node: workerNodes(cluster)[0]! },
    inNetns,
  });
  log(`e2e suite exited ${code} after ${elapsed()}`);
  return code;
}

main()
  .catch((err: Error) => {
    // Signalled: our children got the signal too and failed; the handler says so and exits 130.
    if (signalled) return 130;
    process.stderr.write(
      err instanceof NotRun
        ? `\nKIND TIER NOT RUN: ${err.message}\n\n`
        : `\nKIND TIER FAILED: ${err.message}\n`,
    );
    return 1;
  })
  .then(async (code) => {
    await cleanup();
    if (signalled) return; // the signal handler exits
    log(`done after ${elapsed()} (exit ${code})`);
    process.exit(code);
  });
