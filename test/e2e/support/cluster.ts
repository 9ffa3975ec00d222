// The suite's handle on the cluster: kubectl and helm as a user runs them, the release's pods,
// and HTTP from inside the cluster (a receiver pod of the suite's own), so the same scenario runs
// where the test process can reach pod IPs (the real node) and where it cannot (kind).
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CoreV1Api, CustomObjectsApi, KubeConfig, type V1Pod, Watch } from "@kubernetes/client-node";
import { inject } from "vitest";
import { waitFor } from "../../../src/dev/cluster/process.ts";
import { VERSION } from "../../../src/schema/api-group.ts";
import { type E2eContext, e2eContextFromEnv } from "./context.ts";

declare module "vitest" {
  export interface ProvidedContext {
    e2e: E2eContext;
  }
}

const CHART = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../deploy/helm/livepeer-operator",
);
/** Where the suite's own workloads go (removed by the uninstall scenario). */
export const APP_NS = "e2e-video";
export const RECEIVER = "e2e-receiver";
export const RECEIVER_PORT = 9000;

export const ctx: E2eContext = inject("e2e") ?? e2eContextFromEnv(process.env, CHART);
const kc = new KubeConfig();
kc.loadFromFile(ctx.kubeconfig);
export const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);

export interface Run {
  code: number;
  out: string;
}

function run(cmd: string, args: string[], input?: string, timeout = 300_000): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { maxBuffer: 32 * 1024 * 1024, timeout }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** kubectl's exit code and output (stdout then stderr). */
export const kubectlRun = (args: string[], input?: string) =>
  run(ctx.kubectl, [`--kubeconfig=${ctx.kubeconfig}`, ...args], input);

/** kubectl's stdout; throws with its stderr when it fails. */
export async function kubectl(args: string[], input?: string): Promise<string> {
  const r = await kubectlRun(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}): ${r.out}`);
  return r.out;
}

export const helm = (args: string[]) => run(ctx.helm, [...args, `--kubeconfig=${ctx.kubeconfig}`]);

export async function releasePods(component: string): Promise<V1Pod[]> {
  return (
    await core.listNamespacedPod({
      namespace: ctx.namespace,
      labelSelector: `app.kubernetes.io/instance=${ctx.release},app.kubernetes.io/component=${component}`,
    })
  ).items;
}

export const isReady = (p: V1Pod) =>
  !p.metadata?.deletionTimestamp &&
  !!p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");

/** What went wrong: every pod of the cluster, and the last log lines of the release's. */
export async function podsReport(): Promise<string> {
  const out = await kubectl(["get", "pods", "-A", "-o", "wide"]).catch((e: Error) => e.message);
  const all = (await core.listNamespacedPod({ namespace: ctx.namespace })).items;
  const details = await Promise.all(
    all.map(async (p) => {
      const logs = await kubectl(["logs", "-n", ctx.namespace, p.metadata!.name!, "--tail=15"]).catch(
        (e: Error) => e.message,
      );
      return `--- ${p.metadata?.name}: ${JSON.stringify(p.status?.containerStatuses?.map((c) => c.state))}\n${logs}`;
    }),
  );
  return `${out}\n${details.join("\n")}`;
}

/** Waits until the release has exactly `count` live `component` pods, all Ready and `ok`. */
export async function waitPodsReady(
  component: string,
  count: number,
  ok: (p: V1Pod) => boolean = () => true,
) {
  let last: V1Pod[] = [];
  await waitFor(
    `${count} ${component} pods Ready`,
    async () => {
      last = (await releasePods(component)).filter((p) => !p.metadata?.deletionTimestamp);
      return last.length === count && last.every((p) => isReady(p) && ok(p));
    },
    240_000,
    () => `${last.map((p) => `${p.metadata?.name} ready=${isReady(p)}`).join(", ")}`,
  ).catch(async (err: Error) => {
    throw new Error(`${err.message}\n${await podsReport()}`);
  });
  return last;
}

/** Runs a node script in a pod's first container (images built from this repo have /usr/local/bin/node). */
export async function nodeIn(pod: string, namespace: string, script: string): Promise<string> {
  return (await kubectl(["exec", "-n", namespace, pod, "--", "/usr/local/bin/node", "-e", script])).trim();
}

/** HTTP from inside the cluster (the receiver pod): status and body text. */
export async function fetchInCluster(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  const script = `fetch(${JSON.stringify(url)}, ${JSON.stringify(init)}).then(async (r) => console.log(JSON.stringify({ status: r.status, text: await r.text() })), (e) => console.log(JSON.stringify({ status: 0, text: String(e.cause ?? e) })))`;
  return JSON.parse(await nodeIn(RECEIVER, APP_NS, script)) as { status: number; text: string };
}

/** The JSON of a namespaced resource. */
export async function getJson<T>(kind: string, name: string, namespace: string): Promise<T> {
  return JSON.parse(await kubectl(["get", kind, name, "-n", namespace, "-o", "json"])) as T;
}

/** Creates the app namespace (an existing one is fine) and waits for its default ServiceAccount (pods need it). */
export async function appNamespaceReady(): Promise<void> {
  const r = await kubectlRun(["create", "namespace", APP_NS]);
  if (r.code !== 0 && !/AlreadyExists/.test(r.out))
    throw new Error(`kubectl create namespace ${APP_NS}: ${r.out}`);
  await waitFor(
    `the default ServiceAccount in ${APP_NS}`,
    async () =>
      !!(await core
        .readNamespacedServiceAccount({ name: "default", namespace: APP_NS })
        .catch(() => undefined)),
    30_000,
  );
}

type Versioned = { metadata?: { name?: string; resourceVersion?: string } };

/**
 * Every version of the objects of one list (`kubectl get <kind> -n <namespace>`) from now on, in
 * order: the list's items first, then each watch event (the API server's, so no write between
 * two looks is missed). A watch the server ends is resumed from the last version seen. One it
 * cannot resume (410 Gone: an updated CRD restarts the API server's cache of its objects, whose
 * history then begins later) is listed again at once and `gaps` says so: a change made and undone
 * between the last event and that list is the only thing such a gap can hide. Any other watch
 * error is thrown by `stop()`, so the timeline a test reads is never silently incomplete.
 */
export async function watchVersions<T extends Versioned>(
  kind: string,
  namespace: string,
  onVersion: (obj: T) => void,
): Promise<{ stop(): Promise<void>; gaps: string[] }> {
  const [plural, ...group] = kind.split(".");
  const base = `/apis/${group.join(".")}/${VERSION}/namespaces/${namespace}/${plural}`;
  const gaps: string[] = [];
  let from = "";
  let stopped = false;
  let gone = false;
  let failure: Error | undefined;
  let abort: AbortController | undefined;
  const list = async () => {
    // The API's own list (kubectl's `-o json` merges into a List without a resourceVersion).
    const l = (await custom.listNamespacedCustomObject({
      group: group.join("."),
      version: VERSION,
      namespace,
      plural: plural!,
    })) as { items: T[]; metadata: { resourceVersion: string } };
    for (const item of l.items) onVersion(item);
    from = l.metadata.resourceVersion;
  };
  const start = async (): Promise<void> => {
    abort = await new Watch(kc).watch(
      base,
      { resourceVersion: from, allowWatchBookmarks: true },
      (phase, obj: T & { code?: number; message?: string }) => {
        if (phase === "ERROR") {
          if (obj.code === 410) gone = true;
          else failure ??= new Error(`watch ${kind}: ${obj.code} ${obj.message}`);
          return;
        }
        from = obj.metadata?.resourceVersion ?? from;
        if (phase !== "BOOKMARK") onVersion(obj);
      },
      (err: unknown) => {
        if (stopped || failure) return;
        if (err && !(err instanceof Error && err.name === "AbortError")) {
          failure = new Error(`watch ${kind}: ${err}`);
          return;
        }
        const resume = gone
          ? list().then(() => {
              gaps.push(
                `${new Date().toISOString().slice(11, 23)} ${kind}: history gone, listed again at ${from}`,
              );
              gone = false;
            })
          : Promise.resolve();
        void resume.then(start).catch((e: Error) => (failure ??= e));
      },
    );
  };
  await list();
  await start();
  return {
    gaps,
    async stop() {
      stopped = true;
      abort?.abort();
      if (failure) throw failure;
    },
  };
}
