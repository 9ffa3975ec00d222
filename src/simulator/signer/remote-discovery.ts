// A signer's -remoteDiscovery (server/remote_discovery.go, discovery/db_discovery.go): at start
// and every -liveAICapReportInterval (25 min) the signer asks every orchestrator of its pool
// (-orchWebhookUrl, else -orchAddr) GetOrchestrator as itself (its address and orchestrator-info
// signature, IgnoreCapacityCheck), keeps those that answer with an eth address and a price, and
// lists for each the capabilities it advertises per model (Constraints.PerCapability:
// "<pipeline>/<model>", e.g. "text-to-image/stabilityai/sdxl-turbo") whose price (the
// capability's, else the orchestrator's) is within the configured maximum. An orchestrator with
// none is not listed (so a video-only orchestrator never is). Until one is cached,
// GET /discover-orchestrators answers 503 "cache empty"; `caps` (repeatable) keeps the
// orchestrators with any of them. The answer is the orchestrator webhook's format: [{address,
// score: 1, capabilities}]. Orchestrators' /discovery endpoints (live runners) are not read.
import { AI_CAPABILITIES } from "../../node/client/capabilities.ts";
import { compare, type Rational, rational } from "../../node/pricing/rational.ts";
import type { OrchestratorInfoMessage } from "../../node/wire/messages.ts";
import type { OrchestratorConnections } from "../gateway/orchestrator-connections.ts";
import type { OrchestratorPool } from "../gateway/orchestrator-pool.ts";
import type { Log } from "./live-payment.ts";

export interface DiscoveredOrchestrator {
  address: string;
  score: number;
  capabilities: string[];
}

const PIPELINE_OF = new Map(Object.entries(AI_CAPABILITIES).map(([name, id]) => [id, name]));
/** server/rpc.go GetOrchestratorInfo's timeout for discovery polls (getOrchestratorTimeoutLoop). */
const POLL_TIMEOUT_MS = 3_000;

/** The capabilities an orchestrator may be listed for, given the signer's maximum price. */
export function eligibleCapabilities(
  info: OrchestratorInfoMessage,
  maxPrice: Rational | undefined,
): string[] {
  const out: string[] = [];
  for (const [id, constraint] of Object.entries(info.capabilities?.constraints?.PerCapability ?? {})) {
    const pipeline = PIPELINE_OF.get(Number(id));
    if (!pipeline) continue;
    for (const model of Object.keys(constraint.models ?? {})) {
      if (model === "") continue;
      const price = capabilityPrice(info, Number(id), model);
      if (!price) continue;
      if (maxPrice && compare(price, maxPrice) > 0) continue;
      out.push(`${pipeline}/${model}`);
    }
  }
  return out.sort();
}

function capabilityPrice(
  info: OrchestratorInfoMessage,
  capability: number,
  model: string,
): Rational | undefined {
  for (const p of info.capabilitiesPrices ?? []) {
    if (Number(p.pixelsPerUnit) <= 0 || Number(p.capability) !== capability) continue;
    if (p.constraint === model) return rational(BigInt(p.pricePerUnit), BigInt(p.pixelsPerUnit));
  }
  const price = info.priceInfo;
  if (!price || Number(price.pixelsPerUnit) <= 0) return undefined;
  return rational(BigInt(price.pricePerUnit), BigInt(price.pixelsPerUnit));
}

export class RemoteDiscovery {
  #cached: DiscoveredOrchestrator[] = [];
  #lastRefresh = 0;
  #polling: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #pool: OrchestratorPool;
  readonly #connections: OrchestratorConnections;
  readonly #maxPrice: Rational | undefined;
  readonly #intervalMs: number;
  readonly #log: Log;

  constructor(options: {
    pool: OrchestratorPool;
    connections: OrchestratorConnections;
    maxPrice: Rational | undefined;
    intervalMs: number;
    log: Log;
  }) {
    this.#pool = options.pool;
    this.#connections = options.connections;
    this.#maxPrice = options.maxPrice;
    this.#intervalMs = options.intervalMs;
    this.#log = options.log;
  }

  /** The first poll now, then one per interval (pollOrchestratorInfo). */
  start(): void {
    void this.poll();
    this.#timer = setInterval(() => void this.poll(), this.#intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** The cached orchestrators, those with any of `caps` when some are given; undefined: cache empty. */
  orchestrators(caps: readonly string[]): DiscoveredOrchestrator[] | undefined {
    // An empty cache is polled again on request (remoteDiscoveryPool.refresh).
    if (this.#cached.length === 0) {
      void this.poll();
      return undefined;
    }
    const wanted = caps.filter((c) => c !== "");
    if (wanted.length === 0) return this.#cached.map((o) => ({ ...o }));
    return this.#cached.filter((o) => o.capabilities.some((c) => wanted.includes(c))).map((o) => ({ ...o }));
  }

  /** Resolves when the poll under way (or a new one) is done. */
  poll(): Promise<void> {
    this.#polling ??= this.#pollOnce().finally(() => {
      this.#polling = undefined;
    });
    return this.#polling;
  }

  async #pollOnce(): Promise<void> {
    const { entries } = await this.#pool.entries();
    this.#log("I", "db_discovery.go:333", `Using orchestrator pool with ${entries.length} orchestrators`);
    const answers = await Promise.all(
      entries.map(async (entry) => {
        try {
          const info = await this.#connections.getOrchestrator(entry.url, POLL_TIMEOUT_MS, {
            ignoreCapacityCheck: true,
          });
          if (info.address.length === 0) throw new Error(`missing ETH address orch=${info.transcoder}`);
          if (!info.priceInfo) throw new Error(`missing price info orch=${info.transcoder}`);
          // Listed under the service URI it advertises (OrchNetworkCapabilities.OrchURI).
          return { url: info.transcoder, capabilities: eligibleCapabilities(info, this.#maxPrice) };
        } catch (err) {
          this.#log("E", "db_discovery.go:487", (err as Error).message);
          return undefined;
        }
      }),
    );
    const seen = new Set<string>();
    const cached: DiscoveredOrchestrator[] = [];
    for (const a of answers) {
      const key = a?.url.replace(/\/+$/, "");
      if (!a || !key || a.capabilities.length === 0 || seen.has(key)) continue;
      seen.add(key);
      cached.push({ address: a.url, score: 1, capabilities: a.capabilities });
    }
    this.#cached = cached;
    this.#lastRefresh = Date.now();
  }

  get lastRefresh(): number {
    return this.#lastRefresh;
  }
}
