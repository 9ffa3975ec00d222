// `npm run test:kind`: the e2e suite (test/e2e) on a kind cluster. kind (built from the Go module
// proxy, pinned in versions.json), one control-plane node and two GPU workers, our fake NVIDIA
// device plugin as a DaemonSet on the workers, our images loaded with `kind load image-archive`,
// `helm install`, the suite, and `kind delete cluster` on every exit (Ctrl-C included). Where kind
// cannot run it says exactly why and exits 1, unless LPO_SKIP_KIND=1 asks to skip it.
import { execFile, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { dump } from "js-yaml";
import { rtx3090 } from "../cluster/nodes.ts";
import { buildImages } from "../image/build.ts";
import { ensureBinaries } from "../toolchain/binaries.ts";
import { kindClusterConfig } from "./cluster-config.ts";
import { DEVICE_PLUGIN_NAME, devicePluginDaemonSet } from "./device-plugin-daemonset.ts";
import { ensureNodeImage } from "./node-image/build.ts";
import { type KindFacts, kindVerdict, SKIP_VARIABLE } from "./preflight.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const here = path.dirname(fileURLToPath(import.meta.url));
const log = (line: string) => process.stderr.write(`[kind] ${line}\n`);
const GPUS_PER_WORKER = 2;
/** kind's default Service subnet: deliveries to the suite's receiver Service must be allowed there. */
const KIND_SERVICE_SUBNET = "10.96.0.0/16";
const NS = "livepeer-system";
const RELEASE = "lpo";

interface Run {
  code: number;
  out: string;
}

function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  timeout = 600_000,
): Promise<Run> {
  return new Promise((resolve) =>
    execFile(cmd, args, { env, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}

async function must(cmd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const r = await run(cmd, args, env);
  if (r.code !== 0) throw new Error(`${path.basename(cmd)} ${args.join(" ")} failed (${r.code}):\n${r.out}`);
  return r.out;
}

/**
 * The node image: LPO_KIND_NODE_IMAGE when set (pulled if absent), otherwise our own, built here
 * without a registry and cached by its inputs (node-image/build.ts).
 */
async function nodeImageFacts(
  named: string | undefined,
): Promise<Pick<KindFacts, "nodeImage" | "nodeImageError">> {
  if (!named) {
    try {
      return { nodeImage: (await ensureNodeImage(log)).ref };
    } catch (err) {
      return {
        nodeImage: "livepeer-operator/kind-node (built locally)",
        nodeImageError: (err as Error).message,
      };
    }
  }
  if ((await run("docker", ["image", "inspect", named])).code !== 0) {
    log(`pulling ${named}`);
    const pull = await run("docker", ["pull", named], process.env, 300_000);
    if (pull.code !== 0) return { nodeImage: named, nodeImageError: pull.out };
  }
  return { nodeImage: named };
}

async function gatherFacts(named: string | undefined): Promise<KindFacts> {
  const facts: KindFacts = { nodeImage: named ?? "livepeer-operator/kind-node (built locally)" };
  const cli = await run("docker", ["version", "--format", "{{.Client.Version}}"]);
  if (cli.code === 127 || /ENOENT/.test(cli.out)) return facts;
  facts.dockerCli = cli.out.trim().split("\n")[0] ?? "unknown";
  const info = await run("docker", ["info", "--format", "{{.ServerVersion}}"]);
  if (info.code !== 0) return { ...facts, daemonError: info.out };
  const image = await nodeImageFacts(named);
  if (image.nodeImageError) return { ...facts, ...image };
  const nodeImage = image.nodeImage;
  facts.nodeImage = nodeImage;
  // Named, and removed whatever happens: a refused create can leave a container behind.
  const probeName = `lpo-kind-probe-${process.pid}`;
  const probe = await run("docker", [
    "run",
    "--rm",
    "--name",
    probeName,
    "--privileged",
    "--entrypoint",
    "true",
    nodeImage,
  ]);
  await run("docker", ["rm", "-f", probeName]);
  return probe.code === 0 ? facts : { ...facts, privilegedError: probe.out };
}

/** A directory whose `docker` rewrites --privileged for restricted sandboxes (see sandbox-docker.ts). */
function sandboxDockerDir(work: string, realDocker: string): string {
  const dir = path.join(work, "sandbox-docker");
  mkdirSync(dir, { recursive: true });
  const script = path.join(dir, "docker");
  const cli = path.join(here, "sandbox-docker-cli.ts");
  writeFileSync(script, `#!/bin/sh\nexec "${process.execPath}" "${cli}" "${realDocker}" "$@"\n`);
  chmodSync(script, 0o755);
  return dir;
}

async function main(): Promise<number> {
  if (process.env[SKIP_VARIABLE] === "1") {
    log(`skipped: ${SKIP_VARIABLE}=1`);
    return 0;
  }
  const t0 = Date.now();
  const facts = await gatherFacts(process.env.LPO_KIND_NODE_IMAGE || undefined);
  const nodeImage = facts.nodeImage;
  const verdict = kindVerdict(facts);
  if (!verdict.run) {
    process.stderr.write(`\nKIND TIER NOT RUN: ${verdict.why}\n\n`);
    return 1;
  }
  const bin = await ensureBinaries(["kind", "helm", "kubectl"], log);
  const work = mkdtempSync(path.join(tmpdir(), "lpo-kind-"));
  const name = `lpo-e2e-${process.pid}`;
  const kubeconfig = path.join(work, "kubeconfig");
  const realDocker = (await must("sh", ["-c", "command -v docker"])).trim();
  const env = verdict.sandboxDocker
    ? { ...process.env, PATH: `${sandboxDockerDir(work, realDocker)}${path.delimiter}${process.env.PATH}` }
    : process.env;
  if (verdict.sandboxDocker)
    log("docker run --privileged is refused here: kind runs through the sandbox wrapper");
  let created = false;
  const cleanup = async () => {
    if (created) {
      log(`kind delete cluster --name ${name}`);
      await run(bin.kind, ["delete", "cluster", "--name", name, "--kubeconfig", kubeconfig], env);
      created = false;
    }
    rmSync(work, { recursive: true, force: true });
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void cleanup().finally(() => process.exit(130)));
  }
  try {
    const configFile = path.join(work, "kind.yaml");
    writeFileSync(
      configFile,
      dump(kindClusterConfig({ name, workers: 2, gpu: { ...rtx3090, count: GPUS_PER_WORKER } })),
    );
    log(`kind create cluster --name ${name} (${nodeImage}, 1 control plane + 2 GPU workers)`);
    created = true;
    await must(
      bin.kind,
      [
        "create",
        "cluster",
        "--name",
        name,
        "--config",
        configFile,
        "--image",
        nodeImage,
        "--kubeconfig",
        kubeconfig,
        "--wait",
        "180s",
      ],
      env,
    );
    const kubectl = (args: string[], input?: string) =>
      new Promise<string>((resolve, reject) => {
        const child = execFile(bin.kubectl, [`--kubeconfig=${kubeconfig}`, ...args], (err, stdout, stderr) =>
          err ? reject(new Error(`kubectl ${args.join(" ")}: ${stderr || err.message}`)) : resolve(stdout),
        );
        if (input !== undefined) child.stdin?.end(input);
      });
    const built = await buildImages({ log });
    for (const image of [built.operator, built.simulator]) {
      log(`kind load image-archive ${path.basename(image.archive)}`);
      await must(bin.kind, ["load", "image-archive", image.archive, "--name", name], env);
    }
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify(
        devicePluginDaemonSet({
          namespace: "kube-system",
          image: built.operator.ref,
          gpusPerNode: GPUS_PER_WORKER,
        }),
      ),
    );
    await kubectl([
      "rollout",
      "status",
      "daemonset",
      DEVICE_PLUGIN_NAME,
      "-n",
      "kube-system",
      "--timeout=180s",
    ]);
    const [repository, tag] = built.operator.ref.split(":");
    const valuesFile = path.join(work, "values.yaml");
    writeFileSync(
      valuesFile,
      dump({
        image: { repository, tag, pullPolicy: "Never" },
        nodeImage: built.simulator.ref,
        api: { delivery: { allowCidrs: [KIND_SERVICE_SUBNET] } },
      }),
    );
    const chart = path.join(root, "deploy/helm/livepeer-operator");
    log("helm install");
    await must(bin.helm, [
      "install",
      RELEASE,
      chart,
      "-n",
      NS,
      "--create-namespace",
      "-f",
      valuesFile,
      `--kubeconfig=${kubeconfig}`,
    ]);
    log(`cluster and release up in ${((Date.now() - t0) / 1000).toFixed(0)} s; running the e2e suite`);
    const suite = spawn(
      process.execPath,
      [
        path.join(root, "node_modules/vitest/vitest.mjs"),
        "run",
        "--config",
        path.join(root, "vitest.e2e.config.ts"),
      ],
      {
        cwd: root,
        stdio: "inherit",
        env: {
          ...process.env,
          KUBECONFIG: kubeconfig,
          LPO_E2E_KUBECTL: bin.kubectl,
          LPO_E2E_HELM: bin.helm,
          LPO_E2E_NAMESPACE: NS,
          LPO_E2E_RELEASE: RELEASE,
          LPO_E2E_VALUES: valuesFile,
          LPO_E2E_OPERATOR_IMAGE: built.operator.ref,
          LPO_E2E_SIMULATOR_IMAGE: built.simulator.ref,
        },
      },
    );
    const code = await new Promise<number>((resolve) => suite.on("exit", (c) => resolve(c ?? 1)));
    log(`e2e suite exited ${code} after ${((Date.now() - t0) / 1000).toFixed(0)} s in all`);
    return code;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`\nKIND TIER FAILED: ${err.message}\n`);
    process.exit(1);
  },
);
