// One look at a node's endpoints, each read bounded by a timeout, the same for every node: /status
// on the CLI port first (it says whether the node answers at all), then /metrics, and for an
// orchestrator GetOrchestrator on its service port (gRPC over TLS, as a gateway asks it: price,
// capabilities, GPUs and, on chain, ticket parameters), for an on-chain gateway
// /getNetworkCapabilities (what its orchestrators quoted it: on chain they quote only a signed,
// funded asker, so this is where the operator learns their prices). /metrics answering 404 means "not served"
// (no -monitor), not "unreachable". An answer that says it is simulated (/status's `Simulated`,
// the `+simulated` build metadata of the capabilities' version) sets `simulated`, which feeds the
// Simulated condition and nothing else.
import {
  type EndpointFailure,
  GET_ORCHESTRATOR,
  type LiveRunnerSeen,
  type NetworkOrchestrator,
  NodeEndpointError,
  readHardwareStats,
  readLiveDiscovery,
  readMetrics,
  readNetworkCapabilities,
  readOrchestratorInfo,
  readRunnerHealth,
  readStatus,
  saysSimulated,
  type TicketParams,
} from "../../node/client/index.ts";
import type { GpuMemory } from "../../node/diagnosis/index.ts";
import type { NodeConnection } from "../../node/wire/connection.ts";
import type { OrchestratorIdentity } from "../../node/wire/identity.ts";
import { type NodeTarget, nodeUrl, serviceUrl } from "./target.ts";

/** One orchestrator in a gateway node's /getNetworkCapabilities, with the price it quoted that gateway. */
export interface Quote {
  /** The service URI it advertises (orch_uri), e.g. https://orch.example.com:8935. */
  orchUri?: string | undefined;
  /** Its ticket recipient (address) and its own address (local_address), 0x..., any case. */
  addresses: string[];
  /** Wei per pixelsPerUnit pixels, ticket overhead included: what it asks that gateway. */
  pricePerUnit: string;
  pixelsPerUnit: number;
}

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
  /**
   * Sessions the node carries now, which a restart would cut (undefined: not known): a gateway's
   * live streams (/status Manifests), an orchestrator's transcode sessions (/metrics
   * livepeer_current_sessions_total); a transcoder holds none of its own (its orchestrator moves
   * its segments to another transcoder), unless its /metrics counts some.
   */
  sessions?: number;
  gpus?: GpuMemory[];
  capabilities?: number[];
  /** The price the orchestrator advertises (its orchestrator info), as gateways see it. */
  price?: { pricePerUnit: string; pixelsPerUnit: number };
  /** On chain: the ticket parameters its orchestrator info carries. */
  ticketParams?: TicketParams;
  /**
   * Why the orchestrator answered GetOrchestrator with a refusal instead of its info: "at capacity"
   * or "not quoted to the asker" (on chain: no signature or reserve; what it advertises is then
   * the last read's, if any).
   */
  withheld?: "at capacity" | "not quoted to the asker";
  /** An AI runner's /health status (OK, IDLE, LOADING, ERROR). */
  health?: string;
  /**
   * An on-chain gateway: the orchestrators its node lists with the price each quoted it (empty:
   * none yet - the node answers 500 until one has quoted it); absent: not read.
   */
  quotes?: Quote[];
  /**
   * An orchestrator with live runners: what its GET /discovery offers (ready runners only);
   * `notServed` when it answered 404 (the node runs without live runners).
   */
  live?: { runners: LiveRunnerSeen[] } | { notServed: true } | { failed: string };
}

export interface ReadOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * The kept connection to the orchestrator's service port, or how to get it (asked for only once
   * /status answered), and who asks (see serviceConnection).
   */
  service?: { connection: NodeConnection | (() => NodeConnection); identity: OrchestratorIdentity };
  /** The pod's last reading: what a full orchestrator advertised before it filled up. */
  previous?: NodeReading | undefined;
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

/** A refusal that says the node is there and chose not to tell (the node's own error texts). */
function withheld(err: unknown): NodeReading["withheld"] {
  if (!(err instanceof NodeEndpointError) || err.reason !== "grpc-status") return undefined;
  if (/\bOrchestratorCapped\b/.test(err.message)) return "at capacity";
  // On chain: an asker without a valid signature (core/orchestrator.go VerifySig), or without
  // reserve (pm/recipient.go) is not quoted.
  if (/insufficient sender reserve|req sig check failed/.test(err.message)) return "not quoted to the asker";
  return undefined;
}

function carryOver(reading: NodeReading, previous: NodeReading | undefined): void {
  if (!previous) return;
  if (previous.price) reading.price = previous.price;
  if (previous.capabilities) reading.capabilities = previous.capabilities;
  if (previous.ticketParams) reading.ticketParams = previous.ticketParams;
  if (previous.gpus && !reading.gpus) reading.gpus = previous.gpus;
}

/**
 * A reading whose first endpoint failed, as one literal: the doctor keeps it until the next look,
 * and a field added later would take a properties store of its own.
 */
function failedFirst(r: NodeReading, failed: EndpointFailureInfo): NodeReading {
  return { pod: r.pod, at: r.at, answered: r.answered, simulated: r.simulated, failed };
}

export async function readNode(target: NodeTarget, options: ReadOptions): Promise<NodeReading> {
  const at = new Date();
  const reading: NodeReading = { pod: target.pod, at, answered: [], simulated: false };
  if (!target.ip) {
    return failedFirst(reading, {
      endpoint: "/status",
      url: "(no pod IP)",
      reason: "unreachable",
      message: `pod ${target.pod} reports no IP address yet`,
    });
  }
  const cli = nodeUrl(target.ip, target.cliPort);
  const request = { timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
  if (target.role === "aiRunner") return readRunner(reading, cli, request);
  try {
    const status = await readStatus(cli, request);
    reading.answered.push("/status");
    reading.simulated = status.simulated;
    if (target.role === "gateway") reading.sessions = status.manifests.length;
  } catch (err) {
    return failedFirst(reading, failure(err, cli, "/status"));
  }
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
  if (target.role === "gateway" && target.quotes) reads.push(readQuotes(reading, cli, request));
  const service = options.service;
  if (service && target.role === "orchestrator") {
    const connection = typeof service.connection === "function" ? service.connection() : service.connection;
    reads.push(
      readOrchestratorInfo(connection, service.identity, request).then(
        (info) => {
          reading.answered.push(GET_ORCHESTRATOR);
          reading.simulated ||= saysSimulated(info.capabilities.version);
          reading.capabilities = info.capabilities.ids;
          if (info.priceInfo) {
            reading.price = {
              pricePerUnit: info.priceInfo.pricePerUnit,
              pixelsPerUnit: Number(info.priceInfo.pixelsPerUnit),
            };
          }
          if (info.ticketParams) reading.ticketParams = info.ticketParams;
          if (info.gpus.length) {
            reading.gpus = info.gpus.map((g) => ({
              id: g.id,
              ...(g.name ? { name: g.name } : {}),
              memoryTotal: g.memoryTotal,
              memoryFree: g.memoryFree,
            }));
          }
        },
        (err) => {
          // The node answered and refused to say: at its session limit (core/orchestrator.go
          // CheckCapacity, as it refuses gateways then), or on chain to an asker with no reserve
          // (core/orchestrator.go VerifySig, pm/recipient.go errInsufficientSenderReserve: the
          // controller asks with none). It is reachable; what it advertised stays as last read.
          const why = withheld(err);
          if (why) {
            reading.answered.push(GET_ORCHESTRATOR);
            reading.withheld = why;
            carryOver(reading, options.previous);
            return;
          }
          reading.failed ??= failure(err, connection.url, GET_ORCHESTRATOR);
        },
      ),
    );
  }
  if (target.liveExpected && target.servicePort !== undefined) {
    const url = serviceUrl(target.ip, target.servicePort);
    reads.push(
      readLiveDiscovery(url, request).then(
        (runners) => {
          reading.answered.push("/discovery");
          reading.live = { runners };
        },
        (err) => {
          // The live registry's view is a fact for the status, not the node's reachability.
          reading.live = notServed(err) ? { notServed: true } : { failed: (err as Error).message };
        },
      ),
    );
  }
  await Promise.all(reads);
  if (target.role === "orchestrator" && reading.metrics?.currentSessions !== undefined)
    reading.sessions = reading.metrics.currentSessions;
  if (target.role === "transcoder") reading.sessions = reading.metrics?.currentSessions ?? 0;
  const order = ["/status", "/metrics", GET_ORCHESTRATOR, NETWORK_CAPABILITIES, "/discovery"];
  reading.answered.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return reading;
}

const NETWORK_CAPABILITIES = "/getNetworkCapabilities";

/**
 * A gateway's /getNetworkCapabilities: the orchestrators it polled that quoted it a price. Its
 * failure fails nothing else (the node answers, it has just not polled yet: 500 "network
 * capabilities not available" until one orchestrator has quoted it).
 */
async function readQuotes(
  reading: NodeReading,
  cli: string,
  request: { timeoutMs: number; signal?: AbortSignal },
): Promise<void> {
  try {
    const network = await readNetworkCapabilities(cli, request);
    reading.answered.push(NETWORK_CAPABILITIES);
    reading.quotes = quotesOf(network.orchestrators);
  } catch (err) {
    if (err instanceof NodeEndpointError && err.status === 500) reading.quotes = [];
  }
}

/**
 * The listed orchestrators that carry a price a gateway can compare (pixelsPerUnit > 0), in a
 * stable order (the node lists them as their answers came in).
 */
export function quotesOf(orchestrators: readonly NetworkOrchestrator[]): Quote[] {
  const key = (q: Quote) =>
    `${q.orchUri ?? ""} ${q.addresses.join(" ")} ${q.pricePerUnit}/${q.pixelsPerUnit}`;
  return quoteList(orchestrators).sort((a, b) => key(a).localeCompare(key(b)));
}

function quoteList(orchestrators: readonly NetworkOrchestrator[]): Quote[] {
  return orchestrators.flatMap((o) => {
    const p = o.priceInfo;
    if (!p || !/^\d+$/.test(p.pixelsPerUnit) || BigInt(p.pixelsPerUnit) <= 0n) return [];
    if (!/^\d+$/.test(p.pricePerUnit)) return [];
    return [
      {
        orchUri: o.orchUri,
        addresses: [o.address, o.localAddress ?? ""].filter((a) => /^0x[0-9a-fA-F]{40}$/.test(a)),
        pricePerUnit: p.pricePerUnit,
        pixelsPerUnit: Number(p.pixelsPerUnit),
      },
    ];
  });
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
    return failedFirst(reading, failure(err, url, "/health"));
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
