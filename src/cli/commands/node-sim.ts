// `livepeer-operator node-sim <go-livepeer flags>`: runs the node simulator in the foreground, as
// the real `livepeer` binary would run with those flags (go-livepeer cannot run on our machines).
import { parseArgs } from "node:util";
import { formatGlog } from "../../simulator/glog.ts";
import type { RoleTimings } from "../../simulator/role-parts.ts";
import { durationMs, loadScenario, type Scenario } from "../../simulator/scenario.ts";
import { NodeStartError, startNodeSimulator } from "../../simulator/simulator.ts";
import { type Command, UsageError } from "../command.ts";

const usage = `Usage: livepeer-operator node-sim [simulator options] <go-livepeer flags...>

Runs a stand-in for go-livepeer: it reads the node's flags (command line, LP_* environment,
-config file, same precedence and checks as the node), binds the ports they name on a loopback
address (with --pod-network: on the flags' own addresses), serves /status,
/getNetworkCapabilities, /metrics (-monitor), /healthz and the CLI port's /setMaxSessions,
/setOrchestratorConfig, /setPriceForBroadcaster, /setBroadcastConfig, /getBroadcastConfig,
/setMaxPriceForCapability, /reward and /fundDepositAndReserve, and prints the node's log lines to
standard error. An orchestrator's service port (-httpAddr) speaks the node's wire protocol: TLS
with a self-signed certificate made at start, gRPC net.Orchestrator (GetOrchestrator,
EndTranscodingSession, Ping) and POST /segment with protobuf Livepeer-Segment / Livepeer-Payment
headers answered by a protobuf TranscodeResult.
It says it is simulated wherever the node's format leaves room: every JSON answer carries
"Simulated": true, the version is <node version>+simulated (OrchestratorInfo
capabilities.version too) and its GPUs are named "Simulated GPU". On chain it makes real chain
calls, only when asked: /reward, /fundDepositAndReserve and /setOrchestratorConfig send
transactions, an orchestrator reads the chain for its ticket parameters and signs Pings, a gateway
signs its GetOrchestrator requests (its startup line lists them).
A gateway (-gateway) takes streams by HTTP ingest (PUT/POST /live/<name>/<seq>.ts on -httpAddr)
and RTMP (rtmp://<-rtmpAddr>/live/<name>), asks -authWebhookUrl about each new stream, finds
orchestrators in -orchAddr or -orchWebhookUrl, sends each segment to one within -maxPricePerUnit
over the node's protocol (gRPC and TLS; no tickets are paid) and serves HLS at
/stream/<name>.m3u8. Transcoding is a pass-through: every rendition is the source segment.
An orchestrator counts one session per stream against -maxSessions and refuses more
(OrchestratorCapped). With -aiWorker and -aiModels entries that have a url + token
(external AI runners, e.g. livepeer-operator ai-runner-sim) it waits for each runner's /health
before binding its ports, advertises the models and forwards POST /text-to-image to them; a
gateway routes POST /text-to-image to an orchestrator that offers the model (503 otherwise). The log says where the simulator differs from the node ("Simulated: ...").
When it is up it prints one line to standard output: READY {"role":...,"cli":...,"http":...}.

Simulator options (anywhere on the line):
  --host <ip>                  loopback address to bind (e.g. 127.1.0.5; default: the flag's
                               host when loopback, else 127.0.0.1)
  --pod-network                bind the flags' own addresses (-cliAddr 0.0.0.0:7935 binds every
                               interface), as the node does. Only inside a network namespace of
                               its own - a pod's: the livepeer-node-simulator image sets it. On
                               a host, leave it out: the simulator then binds only loopback.
  --sim-scenario <file|yaml>   timed actions to play (also: LIVEPEER_SIM_SCENARIO)
  --sim-gpus <n>               GPUs behind -nvidia all (default 1)
  --sim-version <version>      version to report
  --sim-payment-metric <name>  livepeer_payment_create_errors (default) or node_payment_create_errors
  Shorter waits than the node's, for tests (a duration: 500ms, 2s, 1m):
  --sim-orch-webhook-refresh <d>   a gateway asks -orchWebhookUrl again after this (node: 1m;
                                   also LIVEPEER_SIM_ORCH_WEBHOOK_REFRESH)
  --sim-stream-timeout <d>     an HTTP-pushed stream ends after this without a segment (node: 1m;
                               also LIVEPEER_SIM_STREAM_TIMEOUT)
  --sim-session-timeout <d>    an orchestrator ends a session after this without a segment (node:
                               70s; also LIVEPEER_SIM_SESSION_TIMEOUT)
  --sim-ai-runner-timeout <d>  an -aiWorker orchestrator waits this long for each external AI
                               runner's /health before it gives up and exits (node: 2m; also
                               LIVEPEER_SIM_AI_RUNNER_TIMEOUT)
  --sim-live-heartbeat-ttl <d> a dynamic live runner without a heartbeat for this long is removed
                               with its sessions (node: 20s; also LIVEPEER_SIM_LIVE_HEARTBEAT_TTL)
  --sim-live-health-interval <d> static live runners' health_url is polled this often (node: 5s;
                               also LIVEPEER_SIM_LIVE_HEALTH_INTERVAL)

While it runs: POST /__sim/actions on the CLI port with a JSON action or list, e.g.
  {"log": "E1121 ... OrchestratorCapped"}   {"sessions": "limit"}   {"paymentCreateErrors": 2}
  {"fail": {"path": "/status", "status": 503}}   {"fail": {"path": "/status", "hang": true}}
  {"clear": "all"}   {"gpuMemoryUsed": 0.9}
and GET /__sim/state.

Example:
  livepeer-operator node-sim --host 127.1.0.5 -orchestrator -transcoder -monitor \\
    -serviceAddr 127.1.0.5:8935 -cliAddr 0.0.0.0:7935 -httpAddr 0.0.0.0:8935 -maxSessions 6`;

/** Splits our --host / --pod-network / --sim-* options (and their values) from the node's own flags. */
function splitArgs(args: string[]): { ours: string[]; node: string[] } {
  const ours: string[] = [];
  const node: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--pod-network") {
      ours.push(arg);
    } else if (/^--(host|sim-[a-z-]+)(=|$)/.test(arg)) {
      ours.push(arg);
      if (!arg.includes("=") && i + 1 < args.length) ours.push(args[++i]!);
    } else {
      node.push(arg);
    }
  }
  return { ours, node };
}

function parseOurs(ours: string[]) {
  try {
    return parseArgs({
      args: ours,
      strict: true,
      options: {
        host: { type: "string" },
        "pod-network": { type: "boolean" },
        "sim-scenario": { type: "string" },
        "sim-gpus": { type: "string" },
        "sim-version": { type: "string" },
        "sim-payment-metric": { type: "string" },
        "sim-orch-webhook-refresh": { type: "string" },
        "sim-stream-timeout": { type: "string" },
        "sim-session-timeout": { type: "string" },
        "sim-live-heartbeat-ttl": { type: "string" },
        "sim-live-health-interval": { type: "string" },
        "sim-ai-runner-timeout": { type: "string" },
      },
    }).values;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${usage}`);
  }
}

/** --sim-*-timeout / --sim-orch-webhook-refresh, else their LIVEPEER_SIM_* variables. */
function simulatorTimings(opts: ReturnType<typeof parseOurs>): RoleTimings & { aiRunnerTimeoutMs?: number } {
  const read = (option: string, variable: string): number | undefined => {
    const text = (opts as Record<string, string | boolean | undefined>)[option] ?? process.env[variable];
    if (text === undefined || typeof text === "boolean") return undefined;
    const ms = durationMs(text);
    if (ms === undefined || ms <= 0) {
      throw new UsageError(
        `--${option} ${text}: give a duration > 0 such as 500ms, 2s or 1m (or set ${variable})`,
      );
    }
    return ms;
  };
  const refresh = read("sim-orch-webhook-refresh", "LIVEPEER_SIM_ORCH_WEBHOOK_REFRESH");
  const stream = read("sim-stream-timeout", "LIVEPEER_SIM_STREAM_TIMEOUT");
  const session = read("sim-session-timeout", "LIVEPEER_SIM_SESSION_TIMEOUT");
  const aiRunner = read("sim-ai-runner-timeout", "LIVEPEER_SIM_AI_RUNNER_TIMEOUT");
  const liveTtl = read("sim-live-heartbeat-ttl", "LIVEPEER_SIM_LIVE_HEARTBEAT_TTL");
  const liveHealth = read("sim-live-health-interval", "LIVEPEER_SIM_LIVE_HEALTH_INTERVAL");
  return {
    ...(refresh ? { orchWebhookRefreshMs: refresh } : {}),
    ...(stream ? { streamTimeoutMs: stream } : {}),
    ...(session ? { sessionTimeoutMs: session } : {}),
    ...(aiRunner ? { aiRunnerTimeoutMs: aiRunner } : {}),
    ...(liveTtl ? { liveHeartbeatTtlMs: liveTtl } : {}),
    ...(liveHealth ? { liveHealthIntervalMs: liveHealth } : {}),
  };
}

export const command: Command = {
  name: "node-sim",
  summary: "Run a go-livepeer stand-in (flags, ports, endpoints, log lines) on a loopback address.",
  usage,
  async run(args) {
    const { ours, node } = splitArgs(args);
    const opts = parseOurs(ours);
    if (opts.host !== undefined && opts["pod-network"]) {
      throw new UsageError(
        "--host and --pod-network contradict each other: --pod-network binds the flags' own addresses (use it only inside a pod); leave it out to bind --host on loopback",
      );
    }
    if (opts.host !== undefined && !/^(127(\.\d{1,3}){3}|::1|localhost)$/.test(opts.host)) {
      throw new UsageError(
        `--host ${opts.host} is not a loopback address: the simulator binds only 127.x addresses`,
      );
    }
    const scenarioSource = opts["sim-scenario"] ?? process.env.LIVEPEER_SIM_SCENARIO;
    let scenario: Scenario | undefined;
    if (scenarioSource) {
      try {
        scenario = loadScenario(scenarioSource);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
    const gpus = opts["sim-gpus"] === undefined ? undefined : Number(opts["sim-gpus"]);
    if (gpus !== undefined && !(Number.isInteger(gpus) && gpus > 0)) {
      throw new UsageError(`--sim-gpus ${opts["sim-gpus"]}: give a whole number > 0`);
    }
    const metric = opts["sim-payment-metric"];
    if (
      metric !== undefined &&
      metric !== "livepeer_payment_create_errors" &&
      metric !== "node_payment_create_errors"
    ) {
      throw new UsageError(
        `--sim-payment-metric ${metric}: use livepeer_payment_create_errors or node_payment_create_errors`,
      );
    }

    const { aiRunnerTimeoutMs, ...timings } = simulatorTimings(opts);
    let sim: Awaited<ReturnType<typeof startNodeSimulator>>;
    try {
      sim = await startNodeSimulator({
        argv: node,
        env: process.env,
        ...(opts.host ? { host: opts.host } : {}),
        ...(opts["pod-network"] ? { podNetwork: true } : {}),
        ...(scenario ? { scenario } : {}),
        ...(gpus ? { gpuCount: gpus } : {}),
        ...(opts["sim-version"] ? { version: opts["sim-version"] } : {}),
        ...(metric ? { paymentErrorsMetric: metric } : {}),
        timings,
        ...(aiRunnerTimeoutMs ? { aiRunnerTimeoutMs } : {}),
      });
    } catch (err) {
      if (!(err instanceof NodeStartError)) throw err;
      // The reasons are already in the node's log on standard error, as the real node prints them.
      if (err.stdout) process.stdout.write(err.stdout);
      return err.exitCode;
    }
    process.stdout.write(`READY ${JSON.stringify({ role: sim.role, ...sim.urls })}\n`);

    const signalled = await new Promise<string | undefined>((resolve) => {
      const onSignal = (signal: NodeJS.Signals) => resolve(signal === "SIGINT" ? "interrupt" : "terminated");
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      void sim.exited.then(() => {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        resolve(undefined);
      });
    });
    if (signalled) {
      process.stderr.write(`${formatGlog("I", "livepeer.go:93", `Exiting Livepeer: ${signalled}`)}\n`);
      await sim.stop();
      process.stderr.write(`${formatGlog("I", "livepeer.go:101", "Graceful shutdown complete")}\n`);
    }
    return sim.exited;
  },
};
