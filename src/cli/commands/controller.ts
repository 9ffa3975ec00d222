import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { CONTROLLER_NAMES, controllers } from "../../controller/controllers.ts";
import { keepCrdsCurrent } from "../../controller/crds/keep-current.ts";
import { parseAddress } from "../../controller/runtime/health-server.ts";
import { LEADER_ELECTION_DEFAULTS, Manager } from "../../controller/runtime/index.ts";
import { loadKubeConfig } from "../../kube/index.ts";
import { applyHeapGrowth, parseHeapGrowingPercent } from "../../process/heap-growth.ts";
import type { LogLevel } from "../../process/log.ts";
import { createLogger } from "../../process/log.ts";
import { packageVersion } from "../../release/version.ts";
import { type Command, UsageError } from "../command.ts";

const IN_CLUSTER_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

const usage = `Usage: livepeer-operator controller [options]

Runs the operator's controllers (${CONTROLLER_NAMES.join(", ")}) against the cluster in
--kubeconfig, $KUBECONFIG, or the pod's service account. With several replicas, one leads
(a coordination.k8s.io Lease) and the others wait, caches warm, to take over.

Options:
  --kubeconfig FILE        kubeconfig to use (default: $KUBECONFIG, in-cluster, ~/.kube/config)
  --namespace NS           watch only these namespaces; repeat or comma-separate (default: all)
  --webhook-namespace NS   where the webhook API keeps Webhooks and their Secrets (the chart's
                           release namespace); repeat or comma-separate. The only namespaces in
                           which the controller lists and watches Secrets: elsewhere it gets a
                           keystore Secret by name and creates, patches and gets the Secrets it
                           generates by name (default: the pod's namespace, else the --namespace
                           list)
  --metrics-addr HOST:PORT /metrics, /healthz, /readyz (default 127.0.0.1:8080; in a pod use
                           0.0.0.0:8080; 0 = no server)
  --leader-elect[=BOOL]    elect a leader through a Lease (default true; --no-leader-elect or
                           --leader-elect=false only with a single replica)
  --lease-namespace NS     namespace of the Lease (default: the pod's namespace, else default)
  --lease-name NAME        name of the Lease (default livepeer-operator-leader)
  --lease-duration S       seconds a leader's lease lasts without renewal (default 15)
  --renew-deadline S       seconds a leader keeps trying to renew before it steps down (default 10)
  --retry-period S         seconds between election attempts and renewals (default 2)
  --controllers NAMES      run only these controllers; repeat or comma-separate (default: all)
  --workers N              concurrent reconciles per controller (default 2)
  --identity NAME          this replica's name in the Lease and Events (default: $POD_NAME, else
                           hostname_uuid)
  --shutdown-timeout S     seconds to let reconciles finish on SIGTERM (default 20)
  --node-doctor-period S   seconds between two looks at a node pod's endpoints and log (default 30)
  --node-doctor-rate N     periodic looks started per second, at most (default 20; each reads a
                           log through the API server): past period x rate pods, each is looked
                           at every pods / rate seconds instead (a pod that changed: at once)
  --node-hooks-url URL     the webhook API server's base URL as gateway pods reach it, e.g.
                           http://livepeer-operator-api.livepeer-system.svc:3000 (the chart sets
                           it): Gateways that select Orchestrators get their list from its
                           discovery hook (without it they say they cannot be served), and
                           Gateways with spec.streamEvents send stream events through it
  --orchestrator-addresses MODE
                           how gateways reach the orchestrators they are given: service (their
                           advertised address, default) or pod-ip (no cluster DNS, as in the
                           embedded default)
  --manage-crds[=BOOL]     server-side apply the CRDs this version carries (field manager
                           livepeer-operator-crds) and wait until they are served: missing ones
                           at start, changed ones once this replica leads (the previous leader
                           has stopped); refuse to start when a newer operator wrote them with
                           another schema (default true; --manage-crds=false when you keep the
                           CRDs yourself; see docs/install.md)
  --heap-growing-percent N after a full GC, V8 lets the heap grow by N % of what is live before
                           the next one (default 20; 0 = V8's own factor, about 45 % for this
                           process at scale, which holds more garbage: docs/sizing.md). A
                           --heap-growing-percent on node's own command line wins
  --log-level LEVEL        debug | info | warn | error (default info)`;

function seconds(flag: string, value: string | undefined, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  const s = Number(value);
  if (!Number.isFinite(s) || s <= 0)
    throw new UsageError(`--${flag} must be a positive number of seconds, got ${value}`);
  return Math.round(s * 1000);
}

/** `--leader-elect=false` is what people type (kubebuilder's flag); parseArgs booleans take no value. */
function normalizeBooleans(args: string[]): string[] {
  return args.map((a) => {
    const m = /^--(leader-elect|manage-crds)=(true|false)$/i.exec(a);
    if (!m) return a;
    return m[2]!.toLowerCase() === "true" ? `--${m[1]}` : `--no-${m[1]}`;
  });
}

/** Repeatable flags that also take comma lists: --namespace a,b --namespace c. */
function list(values: string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args: normalizeBooleans(args),
      allowNegative: true,
      options: {
        kubeconfig: { type: "string" },
        namespace: { type: "string", multiple: true },
        "webhook-namespace": { type: "string", multiple: true },
        "metrics-addr": { type: "string", default: "127.0.0.1:8080" },
        "leader-elect": { type: "boolean", default: true },
        "manage-crds": { type: "boolean", default: true },
        "lease-namespace": { type: "string" },
        "lease-name": { type: "string", default: "livepeer-operator-leader" },
        "lease-duration": { type: "string" },
        "renew-deadline": { type: "string" },
        "retry-period": { type: "string" },
        controllers: { type: "string", multiple: true },
        workers: { type: "string", default: "2" },
        identity: { type: "string" },
        "shutdown-timeout": { type: "string" },
        "node-doctor-period": { type: "string" },
        "node-doctor-rate": { type: "string" },
        "node-hooks-url": { type: "string" },
        "orchestrator-addresses": { type: "string", default: "service" },
        "log-level": { type: "string", default: "info" },
        "heap-growing-percent": { type: "string" },
      },
    });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}; see 'livepeer-operator controller --help'`);
  }
}

/** The pod's namespace when running in one. */
function podNamespace(): string | undefined {
  if (process.env.POD_NAMESPACE) return process.env.POD_NAMESPACE;
  if (existsSync(IN_CLUSTER_NAMESPACE)) return readFileSync(IN_CLUSTER_NAMESPACE, "utf8").trim();
  return undefined;
}

function defaultLeaseNamespace(): string {
  return podNamespace() ?? "default";
}

export const command: Command = {
  name: "controller",
  summary:
    "Run the operator's controllers (Webhook, Orchestrator, Gateway, RemoteSigner) with leader election and metrics.",
  usage,
  async run(args) {
    const { values } = parse(args);
    const level = values["log-level"] as LogLevel;
    if (!["debug", "info", "warn", "error"].includes(level)) {
      throw new UsageError(`--log-level must be debug, info, warn or error, got ${level}`);
    }
    let heapGrowingPercent: number;
    try {
      heapGrowingPercent = parseHeapGrowingPercent(values["heap-growing-percent"]);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const workers = Number(values.workers);
    if (!Number.isInteger(workers) || workers < 1)
      throw new UsageError(`--workers must be a positive integer, got ${values.workers}`);
    const metricsAddr = values["metrics-addr"] === "0" ? undefined : values["metrics-addr"];
    if (metricsAddr) {
      try {
        parseAddress(metricsAddr);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
    const namespaces = list(values.namespace);
    const pod = podNamespace();
    const webhookNamespaces = list(values["webhook-namespace"]);
    if (!webhookNamespaces.length && pod) webhookNamespaces.push(pod);
    const wanted = list(values.controllers);
    const unknown = wanted.filter((n) => !CONTROLLER_NAMES.includes(n));
    if (unknown.length) {
      throw new UsageError(
        `unknown controller ${unknown.join(", ")}: choose from ${CONTROLLER_NAMES.join(", ")}`,
      );
    }
    const rate = values["node-doctor-rate"];
    if (rate !== undefined && !(Number(rate) > 0)) {
      throw new UsageError(`--node-doctor-rate must be a positive number of looks per second, got ${rate}`);
    }
    const addresses = values["orchestrator-addresses"];
    if (addresses !== "service" && addresses !== "pod-ip") {
      throw new UsageError(`--orchestrator-addresses must be service or pod-ip, got ${addresses}`);
    }
    const hooksUrl = values["node-hooks-url"];
    if (hooksUrl !== undefined && !/^https?:\/\/[^/]+/.test(hooksUrl)) {
      throw new UsageError(
        `--node-hooks-url must be an http(s) URL such as http://livepeer-operator-api.livepeer-system.svc:3000, got ${hooksUrl}`,
      );
    }
    const operatorNamespace = podNamespace();
    const all = controllers({
      ...(hooksUrl ? { nodeHooksUrl: hooksUrl } : {}),
      ...(operatorNamespace ? { operatorNamespace } : {}),
      orchestratorAddresses: addresses,
      ...(webhookNamespaces.length ? { webhookNamespaces } : {}),
      doctor: {
        ...(values["node-doctor-period"] !== undefined
          ? { periodMs: seconds("node-doctor-period", values["node-doctor-period"], 30_000) }
          : {}),
        ...(rate !== undefined ? { looksPerSecond: Number(rate) } : {}),
      },
    });
    const selected = wanted.length ? all.filter((c) => wanted.includes(c.name)) : all;
    const leaseDurationMs = seconds(
      "lease-duration",
      values["lease-duration"],
      LEADER_ELECTION_DEFAULTS.leaseDurationMs,
    );
    if (leaseDurationMs % 1000 !== 0) throw new UsageError("--lease-duration must be whole seconds");
    const election = {
      namespace: values["lease-namespace"] ?? defaultLeaseNamespace(),
      name: values["lease-name"]!,
      leaseDurationMs,
      renewDeadlineMs: seconds(
        "renew-deadline",
        values["renew-deadline"],
        LEADER_ELECTION_DEFAULTS.renewDeadlineMs,
      ),
      retryPeriodMs: seconds("retry-period", values["retry-period"], LEADER_ELECTION_DEFAULTS.retryPeriodMs),
    };
    if (
      !(
        election.leaseDurationMs > election.renewDeadlineMs &&
        election.renewDeadlineMs > election.retryPeriodMs
      )
    ) {
      throw new UsageError("leader election needs --lease-duration > --renew-deadline > --retry-period");
    }
    const identity = values.identity ?? process.env.POD_NAME ?? `${os.hostname()}_${randomUUID()}`;
    const log = createLogger("controller", { level });

    let loaded: ReturnType<typeof loadKubeConfig>;
    try {
      loaded = loadKubeConfig({ kubeconfig: values.kubeconfig });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const manager = new Manager({
      kubeConfig: loaded.kc,
      identity,
      namespaces,
      metricsAddress: metricsAddr,
      leaderElection: values["leader-elect"] ? election : false,
      workers,
      shutdownTimeoutMs: seconds("shutdown-timeout", values["shutdown-timeout"], 20_000),
      log,
      // On an upgrade the CRDs change once this replica leads: the previous leader has stopped by
      // then. A changed CRD cuts every watch of its objects, and an older controller still leading
      // re-lists and re-reads its nodes mid-upgrade (its conditions flap and come back re-stamped).
      ...(values["manage-crds"]
        ? {
            beforeLeading: async (signal: AbortSignal) => {
              await keepCrdsCurrent(manager.client, { log: (m) => log.info(`CRDs: ${m}`), signal });
            },
          }
        : {}),
    });
    for (const def of selected) manager.add(def);
    const heapGrowth = applyHeapGrowth(heapGrowingPercent);
    log.info("starting", {
      cluster: loaded.kc.getCurrentCluster()?.server,
      config: loaded.from,
      namespaces: namespaces.length ? namespaces.join(",") : "all",
      webhookNamespaces: webhookNamespaces.length
        ? webhookNamespaces.join(",")
        : namespaces.length
          ? namespaces.join(",")
          : "all",
      identity,
      heapGrowth,
      version: packageVersion(),
      manageCrds: values["manage-crds"],
      controllers: selected.map((c) => c.name).join(","),
      lease: values["leader-elect"]
        ? `${election.namespace}/${election.name} (${election.leaseDurationMs / 1000}s/${election.renewDeadlineMs / 1000}s/${election.retryPeriodMs / 1000}s)`
        : "disabled",
      pid: process.pid,
    });
    if (values["manage-crds"]) {
      // Before the manager takes the signals: a SIGTERM while the CRDs are checked ends here. A
      // newer operator's CRDs are refused at once, on every replica; missing CRDs (a first
      // install, or a kind this version adds) are created now, or no cache could sync (creating
      // one disturbs no other kind's watches); changed ones once this replica leads.
      const interrupted = new AbortController();
      const onSignal = () => interrupted.abort();
      process.once("SIGTERM", onSignal);
      process.once("SIGINT", onSignal);
      try {
        const judged = await keepCrdsCurrent(manager.client, { checkOnly: true, signal: interrupted.signal });
        if (judged.some((c) => c.missing))
          await keepCrdsCurrent(manager.client, {
            onlyMissing: true,
            log: (m) => log.info(`CRDs: ${m}`),
            signal: interrupted.signal,
          });
        if (judged.some((c) => c.action === "apply" && !c.missing))
          log.info(
            `CRDs: ${judged
              .filter((c) => c.action === "apply" && !c.missing)
              .map((c) => c.name)
              .join(", ")} to be applied once this replica leads`,
          );
      } catch (err) {
        if (!interrupted.signal.aborted) {
          log.error(`could not keep the CRDs current, not starting: ${(err as Error).message}`);
          await manager.stop("CRDs refused");
          return 1;
        }
      } finally {
        process.off("SIGTERM", onSignal);
        process.off("SIGINT", onSignal);
      }
      if (interrupted.signal.aborted) {
        log.info("stopped by a signal while keeping the CRDs current, before any controller started");
        await manager.stop("signal before start");
        return 0;
      }
    }
    manager.stopOnSignals();
    try {
      await manager.start();
    } catch (err) {
      log.error(`could not start: ${(err as Error).message}`);
      await manager.stop("start failed");
      return 1;
    }
    await manager.done;
    return manager.failure ? 1 : 0;
  },
};
