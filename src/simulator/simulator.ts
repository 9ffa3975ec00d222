// A stand-in for go-livepeer, which cannot run on our machines: it takes the node's flags (same
// parsing, precedence and validation), binds the ports they name on a loopback address, serves the
// spec's endpoints with values derived from the flags, prints the node's startup lines, and can be
// steered (log lines, sessions at the limit, payment errors, failing endpoints).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { Server as NetServer } from "node:net";
import { createServer as createTcpServer } from "node:net";
import { hostname } from "node:os";
import path from "node:path";
import { formatHostPort, type HostPort } from "../node/config/addresses.ts";
import type { Environment } from "../node/config/env.ts";
import { FlagParseError } from "../node/config/errors.ts";
import type { NodeFlags } from "../node/config/flag-table.ts";
import { OFFCHAIN } from "../node/config/networks.ts";
import { configFilePath, resolveFlags } from "../node/config/resolve.ts";
import type { NodeRole } from "../node/config/roles.ts";
import { validateFlags } from "../node/config/validate.ts";
import { NodeConnection } from "../node/wire/connection.ts";
import { selfSignedCertificate } from "../node/wire/self-signed-certificate.ts";
import { applyCapabilityPrices } from "./ai/capability-prices.ts";
import { GatewayAi } from "./ai/gateway-ai.ts";
import { OrchestratorAi, OrchestratorAiStartError } from "./ai/orchestrator-ai.ts";
import { simulatedEthClient } from "./chain-client.ts";
import { chainFileProblems } from "./chain-files.ts";
import {
  queryRemoteSigner,
  type RemoteSignerLink,
  RemoteSignerQueryError,
} from "./gateway/remote-signer-client.ts";
import { gatewayRtmpServer } from "./gateway/rtmp-ingest.ts";
import { formatGlog, type GlogLevel, looksLikeNodeLine } from "./glog.ts";
import { closeServer, listen, nodeServer } from "./http-server.ts";
import { LiveStartError, OrchestratorLive } from "./live/orchestrator-live.ts";
import { type PaymentErrorsMetricName, simulatorRegistry } from "./metrics.ts";
import { type NodeModel, nodeModel } from "./node-model.ts";
import { orchestratorParts } from "./orchestrator-parts.ts";
import { orchestratorRpc } from "./orchestrator-rpc.ts";
import { type RoleTimings, roleParts } from "./role-parts.ts";
import type { RouteContext } from "./route-context.ts";
import { cliRoutes, httpRoutes } from "./routes.ts";
import { playScenario, type Scenario } from "./scenario.ts";
import { serviceServer } from "./service-server.ts";
import { SignerStartError, startRemoteSigner } from "./signer/remote-signer.ts";
import { startupLines } from "./startup.ts";
import { controlFor, type SimulatorControl, SimulatorState } from "./state.ts";
import { usageText, versionText } from "./usage.ts";
import { warmWire } from "./wire-warmup.ts";

/** The go-livepeer release the simulator follows. */
export const NODE_VERSION = "0.9.1";

/**
 * The version the simulator reports everywhere (/status, OrchestratorInfo capabilities, -version):
 * the node's, with semver build metadata `+simulated`, which version comparisons ignore.
 */
export function simulatedVersion(version: string): string {
  return version.includes("+") ? version : `${version}+simulated`;
}

export const SIMULATED_VERSION = simulatedVersion(NODE_VERSION);

export interface NodeSimulatorOptions {
  /** go-livepeer's command line (without the program name). */
  argv: readonly string[];
  /** LP_* variables the node would read (default: none, so tests stay hermetic). */
  env?: Environment;
  /** Loopback address every listener binds (default: the flag's host if loopback, else 127.0.0.1). */
  host?: string;
  /**
   * Bind the flags' own addresses, as the node does (`0.0.0.0:7935` binds every interface). Only
   * for a network namespace of its own (a pod's, as the node simulator image runs): on a host the
   * simulator keeps to loopback.
   */
  podNetwork?: boolean;
  /** Where the node's log lines go (default: standard error). */
  log?: (line: string) => void;
  /** Timed actions played after start. */
  scenario?: Scenario;
  /** For relative -config / -aiModels paths (default: the process's cwd). */
  cwd?: string;
  /** GPUs behind -nvidia all (default 1). */
  gpuCount?: number;
  /** Delay of the orchestrator's self-check of -serviceAddr (the node waits 2 s). */
  availabilityCheckDelayMs?: number;
  version?: string;
  /** The real node's name (default) or the spec's. */
  paymentErrorsMetric?: PaymentErrorsMetricName;
  /** Shorter waits than the node's, for tests: webhook refresh, stream and session timeouts. */
  timings?: RoleTimings;
  /** How long an orchestrator waits for each external AI runner's /health at start (the node: 2 min). */
  aiRunnerTimeoutMs?: number;
  /** Aborts the start while it waits for external AI runners (the pod went away meanwhile). */
  signal?: AbortSignal;
}

export interface NodeSimulator {
  /** The node type: a role, or a -remoteSigner node (signer/). */
  role: NodeRole | "remoteSigner";
  flags: NodeFlags;
  urls: { cli: string; http?: string; rtmp?: string };
  control: SimulatorControl;
  /** Resolves with the exit code when the node stops (by stop(), or by itself). */
  exited: Promise<number>;
  stop(): Promise<void>;
}

/** The node refused to start; exitCode is the real node's. stdout holds -help / -version text. */
export class NodeStartError extends Error {
  readonly exitCode: number;
  readonly stdout: string;
  constructor(message: string, exitCode: number, stdout = "") {
    super(message);
    this.name = "NodeStartError";
    this.exitCode = exitCode;
    this.stdout = stdout;
  }
}

const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|localhost)$/;

export async function startNodeSimulator(options: NodeSimulatorOptions): Promise<NodeSimulator> {
  const sink = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const log = (level: GlogLevel, where: string, message: string) => sink(formatGlog(level, where, message));
  const version = simulatedVersion(options.version ?? NODE_VERSION);
  if (options.host !== undefined && !LOOPBACK.test(options.host)) {
    throw new NodeStartError(
      `--host ${options.host} is not a loopback address: the simulator binds only 127.x addresses`,
      2,
    );
  }
  if (options.podNetwork && options.host !== undefined) {
    throw new NodeStartError(
      `--host ${options.host} and --pod-network contradict each other: in a pod the flags' addresses are bound`,
      2,
    );
  }
  const flags = readFlags(options, log);
  if (flags.help) throw new NodeStartError("-help", 0, usageText());
  if (flags.version) throw new NodeStartError("-version", 0, versionText(version));

  const chain = chainFileProblems(flags, options.cwd ?? process.cwd());
  for (const [level, where, message] of chain.lines) log(level, where, message);
  if (chain.fatal) throw new NodeStartError(chain.lines.map((l) => l[2]).join("\n"), 1);
  if (flags.remoteSigner) return startSignerNode(flags, options, log, sink, version);

  let node: NodeModel;
  try {
    node = nodeModel(flags, { gpuCount: options.gpuCount ?? 1 });
  } catch (err) {
    log("E", "starter.go:1452", `Error parsing -aiModels: ${(err as Error).message}`);
    throw new NodeStartError(`Error parsing -aiModels: ${(err as Error).message}`, 1);
  }
  // The node warms its AI runners before it binds any port (starter.go).
  let orchestratorAi: OrchestratorAi | undefined;
  if (node.role === "orchestrator") {
    try {
      orchestratorAi = await OrchestratorAi.start(node, log, sink, options.aiRunnerTimeoutMs, options.signal);
    } catch (err) {
      if (err instanceof OrchestratorAiStartError) throw new NodeStartError(err.message, 1);
      throw err;
    }
  }
  const state = new SimulatorState({
    sessionLimit: node.sessionLimit,
    pricePerUnit: node.pricePerUnit,
    pixelsPerUnit: node.pixelsPerUnit,
    ...(node.serviceUri ? { serviceUri: node.serviceUri } : {}),
    gpuIds: node.gpuIds,
  });
  const control = controlFor(state, (lines) => {
    for (const line of lines) sink(looksLikeNodeLine(line) ? line : formatGlog("I", "simulator.go:3", line));
  });
  const registry = simulatorRegistry(node, state, {
    nodeId: `${flags.ethAcctAddr ? `${flags.ethAcctAddr}-` : ""}${hostname()}`,
    paymentErrorsMetric: options.paymentErrorsMetric ?? "livepeer_payment_create_errors",
  });
  const onError = (err: unknown) => log("E", "simulator.go:4", `simulator error: ${(err as Error).message}`);
  if (node.role === "orchestrator" || node.role === "gateway") warmWire();
  const eth = node.network !== OFFCHAIN ? simulatedEthClient(flags) : undefined;
  // A keyless gateway asks its remote signer first and does not start without it (starter.go).
  let signer: RemoteSignerLink | undefined;
  if (node.role === "gateway" && flags.remoteSignerUrl) {
    try {
      signer = await queryRemoteSigner(flags.remoteSignerUrl, flags.remoteSignerHeaders, log);
    } catch (err) {
      if (err instanceof RemoteSignerQueryError) throw new NodeStartError(err.message, 1);
      throw err;
    }
  }
  const parts = roleParts(node, state, log, options.timings ?? {}, eth, signer);
  const orchestrator =
    node.role === "orchestrator" ? orchestratorParts(node, state, version, eth, log) : undefined;
  const ctx: RouteContext = {
    node,
    state,
    version,
    registry,
    log,
    control,
    broadcast: parts.broadcast,
    ...(eth ? { eth } : {}),
    ...(parts.gateway ? { gateway: parts.gateway } : {}),
    ...(parts.sessions ? { sessions: parts.sessions } : {}),
    ...(orchestrator ? { orchestrator } : {}),
    ...aiContext(node, parts, orchestratorAi, log),
  };
  // Live runners (-useLiveRunners, -liveRunnerConfig): registered before the service port binds.
  let live: OrchestratorLive | undefined;
  if (orchestrator) {
    try {
      live = await OrchestratorLive.start({
        ...orchestrator,
        node,
        state,
        log,
        sink,
        cwd: options.cwd ?? process.cwd(),
        ...(eth ? { eth } : {}),
        timings: {
          ...(options.timings?.liveHeartbeatTtlMs
            ? { heartbeatTtlMs: options.timings.liveHeartbeatTtlMs }
            : {}),
          ...(options.timings?.liveHealthIntervalMs
            ? { healthIntervalMs: options.timings.liveHealthIntervalMs }
            : {}),
        },
      });
    } catch (err) {
      parts.stop();
      if (err instanceof LiveStartError) throw new NodeStartError(err.message, 1);
      throw err;
    }
    if (live) {
      const l = live;
      orchestrator.info.liveModels = () => l.liveModels();
      ctx.live = l;
    }
  }

  const hostFor = (hp: HostPort) =>
    options.podNetwork
      ? hp.host || "0.0.0.0"
      : (options.host ?? (LOOPBACK.test(hp.host) ? hp.host : "127.0.0.1"));
  const closers: (() => Promise<void>)[] = [];
  const bind = async (
    server: NetServer,
    hp: HostPort,
    close: () => Promise<void> = () => closeAny(server),
  ) => {
    closers.push(close);
    const addr = await listen(server, hostFor(hp), hp.port);
    return formatHostPort({ host: addr.address, port: addr.port });
  };
  if (live) closers.push(async () => live.stop());
  const closeAll = () => Promise.all(closers.map((close) => close()));
  let certHost: string | undefined;
  const urls: NodeSimulator["urls"] = { cli: "" };
  const bound: { cli: string; http?: string; rtmp?: string } = { cli: "" };
  try {
    const cli = cliRoutes(ctx);
    bound.cli = await bind(nodeServer(cli, state, onError), node.addresses.cli);
    urls.cli = `http://${bound.cli}`;
    if (node.addresses.http && orchestrator && parts.sessions) {
      // The service port: TLS with a certificate for the service URI's host, made now (cert.go).
      const hp = node.addresses.http;
      certHost = state.serviceUri
        ? new URL(state.serviceUri).hostname.replace(/^\[(.*)\]$/, "$1")
        : hostFor(hp);
      const rpc = orchestratorRpc({
        info: orchestrator.info,
        tokens: orchestrator.tokens,
        sessions: parts.sessions,
        ...(orchestrator.sign ? { sign: orchestrator.sign } : {}),
        log,
      });
      const service = serviceServer(httpRoutes(ctx), rpc, selfSignedCertificate(certHost), state, onError);
      bound.http = await bind(service.server, hp, service.close);
      urls.http = `https://${bound.http}`;
    } else if (node.addresses.http) {
      bound.http = await bind(nodeServer(httpRoutes(ctx), state, onError), node.addresses.http);
      urls.http = `http://${bound.http}`;
    }
    if (node.addresses.rtmp) {
      // A gateway's RTMP ingest; any other role with an RTMP address accepts and closes connections.
      const rtmp = parts.gateway
        ? gatewayRtmpServer(parts.gateway, log)
        : createTcpServer((socket) => socket.destroy());
      bound.rtmp = await bind(rtmp, node.addresses.rtmp);
      urls.rtmp = `rtmp://${bound.rtmp}`;
    }
  } catch (err) {
    parts.stop();
    await closeAll();
    log("E", "webserver.go:25", (err as Error).message);
    throw new NodeStartError((err as Error).message, 1);
  }

  for (const [level, where, message] of startupLines(
    node,
    { ...bound, ...(certHost ? { certHost } : {}) },
    version,
    parts.setupLines.splice(0),
  )) {
    log(level, where, message);
  }
  parts.release();

  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => {
    resolveExit = resolve;
  });
  const stopScenario = options.scenario ? playScenario(options.scenario, (a) => control.apply(a)) : () => {};
  let stopped = false;
  const stop = async (code = 0) => {
    if (stopped) return exited.then(() => undefined);
    stopped = true;
    stopScenario();
    clearTimeout(availabilityTimer);
    parts.stop();
    await closeAll();
    resolveExit(code);
  };
  const availabilityTimer = scheduleAvailabilityCheck(
    node,
    options,
    log,
    () => {
      if (stopped) return;
      log("I", "starter.go:2106", "Orchestrator server shut down");
      void stop(0);
    },
    () => stopped,
  );

  return { role: node.role, flags, urls, control, exited, stop: () => stop(0) };
}

/** A -remoteSigner node: the key, signatures, tickets and discovery (signer/remote-signer.ts). */
async function startSignerNode(
  flags: NodeFlags,
  options: NodeSimulatorOptions,
  log: (l: GlogLevel, w: string, m: string) => void,
  sink: (line: string) => void,
  version: string,
): Promise<NodeSimulator> {
  const hostFor = (hp: HostPort) =>
    options.podNetwork
      ? hp.host || "0.0.0.0"
      : (options.host ?? (LOOPBACK.test(hp.host) ? hp.host : "127.0.0.1"));
  let signer: Awaited<ReturnType<typeof startRemoteSigner>>;
  try {
    signer = await startRemoteSigner({
      flags,
      log,
      hostFor,
      version,
      ...(options.timings?.orchWebhookRefreshMs
        ? { discoveryIntervalMs: options.timings.orchWebhookRefreshMs }
        : {}),
    });
  } catch (err) {
    if (err instanceof SignerStartError) throw new NodeStartError(err.message, err.exitCode);
    throw err;
  }
  const state = new SimulatorState({ sessionLimit: 0, pricePerUnit: "0", pixelsPerUnit: "1", gpuIds: [] });
  const control = controlFor(state, (lines) => {
    for (const line of lines) sink(looksLikeNodeLine(line) ? line : formatGlog("I", "simulator.go:3", line));
  });
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => {
    resolveExit = resolve;
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return exited.then(() => undefined);
    stopped = true;
    await signer.stop();
    resolveExit(0);
  };
  return { role: "remoteSigner", flags, urls: signer.urls, control, exited, stop };
}

function readFlags(
  options: NodeSimulatorOptions,
  log: (l: GlogLevel, w: string, m: string) => void,
): NodeFlags & { help?: boolean } {
  const cwd = options.cwd ?? process.cwd();
  try {
    const configPath = configFilePath({ argv: options.argv, ...(options.env ? { env: options.env } : {}) });
    let configFile: string | undefined;
    if (configPath) {
      try {
        configFile = readFileSync(path.resolve(cwd, configPath), "utf8");
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        throw new FlagParseError(
          "config file",
          `open ${configPath}: ${code === "ENOENT" ? "no such file or directory" : (err as Error).message}`,
        );
      }
    }
    const resolved = resolveFlags({
      argv: options.argv,
      ...(options.env ? { env: options.env } : {}),
      ...(configFile === undefined ? {} : { configFile }),
    });
    if (resolved.flags.version) return resolved.flags;
    if (resolved.ignoredArgs.length > 0) {
      log(
        "W",
        "simulator.go:5",
        `the node ignores everything from ${JSON.stringify(resolved.ignoredArgs[0])} on (${resolved.ignoredArgs.length} argument(s) after the first non-flag): write booleans as -name=false`,
      );
    }
    const problems = validateFlags(resolved.flags);
    for (const p of problems.filter((x) => x.severity === "warning"))
      log("W", "starter.go:0", `${p.message} - ${p.fix}`);
    const errors = problems.filter((x) => x.severity === "error");
    if (errors.length > 0) {
      for (const p of errors) log("F", "starter.go:0", `${p.message} - ${p.fix}`);
      throw new NodeStartError(
        errors.map((p) => `${p.message} - ${p.fix}`).join("\n"),
        Math.max(...errors.map((p) => p.exitCode ?? 1)),
      );
    }
    return resolved.flags;
  } catch (err) {
    if (!(err instanceof FlagParseError)) throw err;
    if (err.exitCode === 0) return { help: true };
    // Go's flag package prints to stdout and exits 2; a bad config or env reaches glog.Exit (1).
    if (err.origin === "command line") log("F", "livepeer.go:48", err.message);
    else log("F", "livepeer.go:52", `Error parsing config: ${err.message}`);
    throw new NodeStartError(err.message, err.exitCode);
  }
}

/**
 * The orchestrator's self-check: ~2 s after start it asks its own -serviceAddr and shuts down when
 * nobody answers. The simulator only ever dials loopback, so other addresses are skipped (said so).
 */
function scheduleAvailabilityCheck(
  node: NodeModel,
  options: NodeSimulatorOptions,
  log: (l: GlogLevel, w: string, m: string) => void,
  shutDown: () => void,
  isStopped: () => boolean,
): NodeJS.Timeout | undefined {
  if (node.role !== "orchestrator" || !node.serviceUri || node.flags.startupAvailabilityCheck === false)
    return undefined;
  const target = new URL(node.serviceUri);
  if (!LOOPBACK.test(target.hostname.replace(/^\[(.*)\]$/, "$1"))) {
    log(
      "I",
      "simulator.go:6",
      `Simulated: skipped the startup availability check of ${node.serviceUri} (the simulator dials only loopback addresses)`,
    );
    return undefined;
  }
  return setTimeout(async () => {
    // As the node: a gRPC Ping to its own service URI (server.CheckOrchestratorAvailability).
    const connection = new NodeConnection(`https://${target.host}`, "any");
    const ok = await connection
      .call("Ping", { type: "PingPong", value: { value: randomBytes(32) } }, "PingPong", { timeoutMs: 1000 })
      .then(
        () => true,
        () => false,
      )
      .finally(() => connection.close());
    if (isStopped()) return;
    if (ok) {
      // The node logs nothing when its check passes; the simulator says so, marking the check's end.
      log(
        "I",
        "simulator.go:14",
        `Simulated: the startup availability check of ${node.serviceUri} was answered; staying up`,
      );
      return;
    }
    log(
      "I",
      "starter.go:2091",
      `Orchestrator not available at ${node.serviceUri} (${formatHostPort(node.addresses.http ?? { host: "", port: 0 })}) via grpc ping check; shutting down`,
    );
    shutDown();
  }, options.availabilityCheckDelayMs ?? 2000);
}

/** The AI part of the route context: an orchestrator's runners, a gateway's routing and caps. */
function aiContext(
  node: NodeModel,
  parts: ReturnType<typeof roleParts>,
  orchestratorAi: OrchestratorAi | undefined,
  log: (l: GlogLevel, w: string, m: string) => void,
): Pick<RouteContext, "ai"> {
  if (node.flags.aiServiceRegistry && node.network !== "offchain") {
    log(
      "I",
      "simulator.go:25",
      "Simulated: -aiServiceRegistry: the node reads service URIs from the AI subnet's ServiceRegistry (0x04C0b249740175999E5BF5c9ac1dA92431EF34C5, starter.go); the simulator reads no chain",
    );
  }
  if (orchestratorAi) return { ai: orchestratorAi };
  const gateway = parts.gateway;
  if (!gateway) return {};
  applyCapabilityPrices(node.flags, gateway.config, node.network !== "offchain", (l, w, m) => log(l, w, m));
  return { ai: new GatewayAi(() => gateway.pool, gateway.config, log, gateway.connections) };
}

function closeAny(server: NetServer): Promise<void> {
  if ("closeAllConnections" in server) return closeServer(server as Server);
  return new Promise((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
}
