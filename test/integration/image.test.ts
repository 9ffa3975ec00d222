// The images built without a registry (`npm run image`), proven by running them: the archives
// are unpacked as a runtime unpacks them, and the root filesystem runs the CLI under chroot, as
// root and as 65532, on a read-only root; the simulator image's entrypoint takes a node pod's
// arguments from the Orchestrator controller unchanged and binds 0.0.0.0 in a network namespace
// of its own, as in a pod. Needs root (chroot, unshare, mount) and apt (the Debian packages).
import { type ChildProcess, execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadAll } from "js-yaml";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { planOrchestrator } from "../../src/controller/orchestrator/plan.ts";
import { type BuiltImages, buildImages } from "../../src/dev/image/build.ts";
import { type ArchiveContents, readArchive, unpackArchive } from "../../src/dev/image/unpack.ts";
import { type AnnouncingChild, spawnAnnouncing } from "../../src/process/announcing-child.ts";
import { freePorts } from "../../src/process/ports.ts";
import { gitCommit } from "../../src/release/version.ts";
import { OrchestratorSpecSchema, type StoredOrchestrator } from "../../src/schema/orchestrator.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const version = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string })
  .version;

/** Absolute paths of the host tools (the image's PATH, given to the children, has no /usr/sbin). */
const tools: Record<string, string> = {};

function requireRootAndTools(): void {
  if (process.getuid?.() !== 0) {
    throw new Error(
      "image.test.ts needs root: it runs the image's root filesystem with chroot, unshare and mount (run the integration tests as root)",
    );
  }
  for (const tool of ["chroot", "unshare", "nsenter", "ip", "mount", "sh", "apt-cache", "dpkg-deb"]) {
    try {
      tools[tool] = execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim();
    } catch {
      throw new Error(`image.test.ts needs '${tool}' on PATH (Debian: util-linux, iproute2, apt, dpkg)`);
    }
  }
}

let built: BuiltImages;
/** HEAD (with -dirty) as the build started: what the image must have recorded. */
let commitAtBuild: string | undefined;
let work: string;
let rootfs: string;
let operator: ArchiveContents;
let simulator: ArchiveContents;
const children: ChildProcess[] = [];

beforeAll(async () => {
  requireRootAndTools();
  commitAtBuild = gitCommit(root);
  built = await buildImages({ log: (l) => process.stderr.write(`${l}\n`) });
  work = mkdtempSync(path.join(tmpdir(), "image-test-"));
  rootfs = path.join(work, "rootfs");
  mkdirSync(rootfs);
  operator = unpackArchive(built.operator.archive, rootfs);
  simulator = readArchive(built.simulator.archive);
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The process a runtime starts for this image and these container args, under chroot. */
function imageArgv(image: ArchiveContents, args: string[]): string[] {
  const c = image.config.config;
  return [tools.chroot!, `--userspec=${c.User ?? "0:0"}`, rootfs, ...(c.Entrypoint ?? []), ...args];
}

function imageEnv(image: ArchiveContents): NodeJS.ProcessEnv {
  return Object.fromEntries(
    (image.config.config.Env ?? []).map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]),
  );
}

function run(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(argv[0]!, argv.slice(1), { env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function start(argv: string[], env: NodeJS.ProcessEnv): AnnouncingChild {
  const s = spawnAnnouncing(argv, env);
  children.push(s.child);
  return s;
}

const ready = (s: AnnouncingChild) => s.ready(30_000);

/** A node pod's objects as the Orchestrator controller builds them, with the simulator image. */
function simulatorPod() {
  const orch: StoredOrchestrator = {
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Orchestrator",
    metadata: { name: "sim", namespace: "images" },
    spec: OrchestratorSpecSchema.parse({ maxSessions: 7 }),
  };
  const plan = planOrchestrator({ orch, nodes: [], defaultImage: built.simulator.ref });
  const container = plan.statefulSets[0]!.spec!.template.spec!.containers[0]!;
  return { plan, container, configFile: plan.configMaps[0]!.data!["livepeer.conf"]! };
}

describe("images built without a registry", () => {
  it("the archives hold what the chart and the Orchestrator's StatefulSet expect", async () => {
    const appVersion = /^appVersion: "?([^"\n]+)"?$/m.exec(
      readFileSync(path.join(root, "deploy/helm/livepeer-operator/Chart.yaml"), "utf8"),
    )?.[1];
    expect(operator.manifest[0]!.RepoTags).toEqual([`livepeer-operator:${appVersion}`]);
    expect(simulator.manifest[0]!.RepoTags).toEqual([`livepeer-node-simulator:${version}`]);
    expect(simulator.manifest[0]!.Layers).toEqual(operator.manifest[0]!.Layers); // one root filesystem

    // The chart: no command (the image's entrypoint runs), a subcommand the image has, the user.
    const helm = await run(
      [
        inject("helm"),
        "template",
        "lpo",
        path.join(root, "deploy/helm/livepeer-operator"),
        "-n",
        "x",
        "--kube-version=1.36.3",
      ],
      process.env,
    );
    expect(helm.code, helm.stderr).toBe(0);
    const deployments = (
      loadAll(helm.stdout) as { kind?: string; spec?: { template: { spec: never } } }[]
    ).filter((d) => d?.kind === "Deployment");
    expect(deployments).toHaveLength(2);
    for (const d of deployments) {
      const pod = d.spec!.template.spec as {
        securityContext: { runAsUser: number; runAsGroup: number };
        containers: {
          image: string;
          command?: string[];
          args: string[];
          securityContext: { readOnlyRootFilesystem: boolean };
        }[];
      };
      const c = pod.containers[0]!;
      expect(c.image).toBe(built.operator.ref);
      expect(c.command).toBeUndefined();
      expect(readFileSync(path.join(rootfs, "app/dist/cli/commands", `${c.args[0]}.js`), "utf8")).toContain(
        "command",
      );
      expect(operator.config.config.User).toBe(
        `${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}`,
      );
      expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    }

    // The StatefulSet: only go-livepeer flags as args; the simulator image supplies node-sim.
    const { container } = simulatorPod();
    expect(container.image).toBe(built.simulator.ref);
    expect(container.command).toBeUndefined();
    expect(container.args).toEqual(["-config", "/etc/livepeer/livepeer.conf"]);
    expect(simulator.config.config.Entrypoint).toEqual([
      ...operator.config.config.Entrypoint!,
      "node-sim",
      "--pod-network",
    ]);
    expect(simulator.config.config.Labels?.["livepeer.org/simulated"]).toBe("true");
  });

  it("the root filesystem runs the CLI under chroot as root and as 65532, on a read-only root", async () => {
    const env = imageEnv(operator);
    const asImage = await run(imageArgv(operator, ["version"]), env);
    expect(asImage.code, asImage.stderr).toBe(0);
    // The commit the build recorded (the image has no .git): this checkout's HEAD as it began.
    expect(built.commit).toBe(commitAtBuild);
    expect(asImage.stdout).toBe(
      `livepeer-operator ${version} (commit ${built.commit}, node ${built.node.version})\n`,
    );
    expect(operator.config.config.Labels?.["org.opencontainers.image.revision"]).toBe(built.commit);
    expect(built.node.version).toMatch(/^v24\./);

    const asRoot = await run([tools.chroot!, rootfs, ...operator.config.config.Entrypoint!, "version"], env);
    expect(asRoot.code, asRoot.stderr).toBe(0);
    expect(asRoot.stdout).toContain(`livepeer-operator ${version}`);

    const whoami = await run(
      [
        ...imageArgv(operator, []).slice(0, 3),
        "/usr/local/bin/node",
        "-p",
        "JSON.stringify(require('os').userInfo())",
      ],
      env,
    );
    expect(JSON.parse(whoami.stdout)).toMatchObject({ uid: 65532, gid: 65532, username: "nonroot" });

    // As the chart runs it: readOnlyRootFilesystem, in a private mount namespace (gone on exit).
    const mount = tools.mount!;
    const script = `${mount} --bind "$1" "$1" && ${mount} -o remount,bind,ro "$1" && shift && exec "$@"`;
    const readOnlyRoot = [
      tools.unshare!,
      "--mount",
      "--propagation",
      "private",
      tools.sh!,
      "-c",
      script,
      "sh",
      rootfs,
    ];
    const readOnly = await run([...readOnlyRoot, ...imageArgv(operator, ["help"])], env);
    expect(readOnly.code, readOnly.stderr).toBe(0);
    expect(readOnly.stdout).toMatch(/^Usage: livepeer-operator <command>/);
    expect(readOnly.stdout).toContain("controller");
    const write = await run(
      [
        ...readOnlyRoot,
        ...imageArgv(operator, []).slice(0, 3),
        "/usr/local/bin/node",
        "-e",
        "require('fs').writeFileSync('/app/x', '')",
      ],
      env,
    );
    expect(write.stderr).toContain("EROFS");
  });

  it("the simulator image starts on loopback flags and prints READY", async () => {
    const [cli, service] = await freePorts(2);
    const s = start(
      imageArgv(simulator, [
        "-orchestrator",
        "-transcoder",
        `-serviceAddr=127.0.0.1:${service}`,
        `-httpAddr=127.0.0.1:${service}`,
        `-cliAddr=127.0.0.1:${cli}`,
        "-maxSessions=3",
      ]),
      imageEnv(simulator),
    );
    const urls = await ready(s);
    expect(urls).toEqual({
      role: "orchestrator",
      cli: `http://127.0.0.1:${cli}`,
      // The service port speaks TLS, as the node's.
      http: `https://127.0.0.1:${service}`,
    });
    const status = (await (await fetch(`${urls.cli}/status`)).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ SessionLimit: 3, Simulated: true });
    s.child.kill("SIGTERM");
    expect(await s.exit).toBe(0);
    expect(s.stderr()).toContain("Graceful shutdown complete");
  });

  it("the simulator image takes a node pod's args unchanged and binds 0.0.0.0 in its own network namespace", async () => {
    const { plan, container, configFile } = simulatorPod();
    // The pod's volumes: the ConfigMap at /etc/livepeer, an emptyDir at /data.
    mkdirSync(path.join(rootfs, "etc/livepeer"), { recursive: true });
    writeFileSync(path.join(rootfs, "etc/livepeer/livepeer.conf"), configFile);
    mkdirSync(path.join(rootfs, "data"), { recursive: true });
    const s = start(
      [
        tools.unshare!,
        "--net",
        tools.sh!,
        "-c",
        `${tools.ip} link set lo up && exec "$@"`,
        "sh",
        ...imageArgv(simulator, container.args!),
      ],
      imageEnv(simulator),
    );
    const urls = await ready(s);
    expect(urls).toMatchObject({
      role: "orchestrator",
      cli: "http://0.0.0.0:7935",
      http: "https://0.0.0.0:8935",
    });
    expect(s.stderr()).toContain("CLI server listening on 0.0.0.0:7935");

    // The readiness probe, from inside the pod's network namespace.
    const probe = container.readinessProbe!.httpGet!;
    const got = await run(
      [
        tools.nsenter!,
        `--net=/proc/${s.child.pid}/ns/net`,
        process.execPath,
        "-e",
        `fetch("http://127.0.0.1:${probe.port}${probe.path}").then(async (r) => console.log(r.status, await r.text()))`,
      ],
      process.env,
    );
    expect(got.code, got.stderr).toBe(0);
    const [code, ...body] = got.stdout.trim().split(" ");
    expect(code).toBe("200");
    expect(JSON.parse(body.join(" "))).toMatchObject({
      SessionLimit: plan.sessionLimit.maxSessions,
      Simulated: true,
    });

    s.child.kill("SIGTERM");
    expect(await s.exit).toBe(0);
    expect(s.stderr()).toContain("Graceful shutdown complete");
  });
});
