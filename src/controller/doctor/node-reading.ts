// One look at a node's endpoints through src/node/client, each read bounded by a timeout: /status
// on the CLI port first (it says whether the node answers at all, and whether it is the
// simulator), then /metrics, and on the service port /getOrchestratorInfo and /hardware/stats
// where the node serves them as the spec's HTTP JSON. The real node answers GetOrchestratorInfo
// over gRPC with TLS and leaves /hardware/stats to its AI runner, so those two are read only
// from nodes that say Simulated; /metrics and /hardware/stats answering 404 mean "not served"
// (no -monitor, no AI runner), not "unreachable".
import {
  type EndpointFailure,
  NodeEndpointError,
  readHardwareStats,
  readMetrics,
  readOrchestratorInfo,
  readRunnerHealth,
  readStatus,
} from "../../node/client/index.ts";
import type { GpuMemory } from "../../node/diagnosis/index.ts";
import { type NodeTarget, nodeUrl } from "./target.ts";

export interface EndpointFailureInfo {
  endpoint: string;
  url: string;
  reason: EndpointFailure;
  /** The client's message: method, endpoint, node and cause. */
  message: string;
}

export interface NodeReading {
  pod: string;
  at: Date;
  /** Endpoints that answered, in the order read. */
  answered: string[];
  /** The first endpoint that failed (the node counts as unreachable). */
  failed?: EndpointFailureInfo;
  /** A `Simulated: true` marker in an answer. */
  simulated: boolean;
  metrics?: { currentSessions: number | undefined; maxSessions: number | undefined };
  gpus?: GpuMemory[];
  capabilities?: number[];
  /** The price the orchestrator advertises (its orchestrator info), as gateways see it. */
  price?: { pricePerUnit: string; pixelsPerUnit: number };
  /** An AI runner's /health status (OK, IDLE, LOADING, ERROR). */
  health?: string;
}

export interface ReadOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

function failure(err: unknown, url: string, endpoint: string): EndpointFailureInfo {
  if (err instanceof NodeEndpointError) return { endpoint, url, reason: err.reason, message: err.message };
  return {
    endpoint,
    url,
    reason: "unreachable",
    message: `GET ${endpoint} of ${url} failed: ${String(err)}`,
  };
}

const notServed = (err: unknown) => err instanceof NodeEndpointError && err.status === 404;

export async function readNode(target: NodeTarget, options: ReadOptions): Promise<NodeReading> {
  const at = new Date();
  const reading: NodeReading = { pod: target.pod, at, answered: [], simulated: false };
  if (!target.ip) {
    reading.failed = {
      endpoint: "/status",
      url: "(no pod IP)",
      reason: "unreachable",
      message: `pod ${target.pod} reports no IP address yet`,
    };
    return reading;
  }
  const cli = nodeUrl(target.ip, target.cliPort);
  const request = { timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
  if (target.role === "aiRunner") return readRunner(reading, cli, request);
  try {
    const status = await readStatus(cli, request);
    reading.answered.push("/status");
    reading.simulated = status.simulated;
  } catch (err) {
    reading.failed = failure(err, cli, "/status");
    return reading;
  }
  const service =
    reading.simulated && target.servicePort !== undefined
      ? nodeUrl(target.ip, target.servicePort)
      : undefined;
  const reads: Promise<void>[] = [
    readMetrics(cli, request).then(
      (m) => {
        reading.answered.push("/metrics");
        reading.metrics = { currentSessions: m.currentSessions, maxSessions: m.maxSessions };
      },
      (err) => {
        if (!notServed(err)) reading.failed ??= failure(err, cli, "/metrics");
      },
    ),
  ];
  if (service && target.role === "orchestrator") {
    reads.push(
      readOrchestratorInfo(service, request).then(
        (info) => {
          reading.answered.push("/getOrchestratorInfo");
          reading.simulated ||= info.simulated;
          reading.capabilities = info.capabilities.ids;
          if (info.priceInfo) {
            reading.price = {
              pricePerUnit: String(info.priceInfo.pricePerUnit),
              pixelsPerUnit: info.priceInfo.pixelsPerUnit,
            };
          }
        },
        (err) => {
          reading.failed ??= failure(err, service, "/getOrchestratorInfo");
        },
      ),
    );
  }
  if (service) {
    reads.push(
      readHardwareStats(service, request).then(
        (gpus) => {
          reading.answered.push("/hardware/stats");
          reading.gpus = gpus.map((g) => ({
            id: g.id,
            ...(g.name ? { name: g.name } : {}),
            memoryTotal: g.memoryTotal,
            memoryFree: g.memoryFree,
          }));
        },
        (err) => {
          if (!notServed(err)) reading.failed ??= failure(err, service, "/hardware/stats");
        },
      ),
    );
  }
  await Promise.all(reads);
  const order = ["/status", "/metrics", "/getOrchestratorInfo", "/hardware/stats"];
  reading.answered.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return reading;
}

/** An AI runner: /health (is the model loaded?), then its GPUs' memory on the same port. */
async function readRunner(
  reading: NodeReading,
  url: string,
  request: { timeoutMs: number; signal?: AbortSignal },
): Promise<NodeReading> {
  try {
    reading.health = await readRunnerHealth(url, request);
    reading.answered.push("/health");
  } catch (err) {
    reading.failed = failure(err, url, "/health");
    return reading;
  }
  try {
    const gpus = await readHardwareStats(url, request);
    reading.answered.push("/hardware/stats");
    reading.gpus = gpus.map((g) => ({
      id: g.id,
      ...(g.name ? { name: g.name } : {}),
      memoryTotal: g.memoryTotal,
      memoryFree: g.memoryFree,
    }));
  } catch {
    // Older runners have no /hardware/stats, a busy one may answer late: /health alone decides.
  }
  return reading;
}
