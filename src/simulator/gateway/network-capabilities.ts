// A gateway's /getNetworkCapabilities (CLI port), as the node fills and answers it: on chain the
// node polls its pool's orchestrators in the background at start and every
// -liveAICapReportInterval (discovery/db_discovery.go cacheOrchInfos: GetOrchestrator asked as
// itself, so each answer is the price that orchestrator quotes this gateway) and lists those that
// answered with an address and a price (server/handlers.go getNetworkCapabilitiesHandler,
// common.OrchNetworkCapabilities). Off chain nothing is polled. With no list the node answers 500
// "network capabilities not available" and then writes the JSON after it (the handler does not
// return), so the body is both, as here.
import type { ServerResponse } from "node:http";
import { getAddress } from "ethers";
import type { OrchestratorInfoMessage } from "../../node/wire/messages.ts";
import type { GlogLevel } from "../glog.ts";
import { networkOrchestratorJson } from "../orchestrator-info-message.ts";
import { CAPABILITY_NAMES } from "../responses.ts";
import type { OrchestratorConnections } from "./orchestrator-connections.ts";
import type { OrchestratorPool } from "./orchestrator-pool.ts";

type Log = (level: GlogLevel, where: string, message: string) => void;

/** -liveAICapReportInterval's default (starter.go). */
export const LIVE_AI_CAP_REPORT_INTERVAL_MS = 25 * 60_000;
/** discovery.getOrchestratorTimeoutLoop. */
const POLL_TIMEOUT_MS = 3_000;

/** Go's common.Address Hex(): EIP-55 mixed case. */
const hexAddress = (bytes: Buffer) =>
  getAddress(
    `0x${Buffer.alloc(20 - Math.min(20, bytes.length)).toString("hex")}${bytes.subarray(-20).toString("hex")}`,
  );

/** An OrchestratorInfo as db_discovery.go orchInfoToOrchNetworkCapabilities lists it. */
export function networkEntry(info: OrchestratorInfoMessage): Record<string, unknown> {
  return {
    address: info.ticketParams ? hexAddress(info.ticketParams.recipient) : "",
    local_address: hexAddress(info.address),
    orch_uri: info.transcoder,
    ...networkOrchestratorJson(info),
  };
}

export class NetworkCapabilities {
  /** undefined: the node's nil list (never polled, or nobody answered with a price). */
  #orchestrators: Record<string, unknown>[] | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  readonly #pool: OrchestratorPool | undefined;
  readonly #connections: OrchestratorConnections;
  readonly #log: Log;

  constructor(pool: OrchestratorPool | undefined, connections: OrchestratorConnections, log: Log) {
    this.#pool = pool;
    this.#connections = connections;
    this.#log = log;
  }

  /** On chain: poll now, in the background, and every intervalMs. */
  start(intervalMs: number): void {
    void this.poll();
    this.#timer = setInterval(() => void this.poll(), intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }

  /** One round of cacheOrchInfos: each pool orchestrator's answer to this gateway. */
  async poll(): Promise<void> {
    const entries = this.#pool ? (await this.#pool.entries()).entries : [];
    this.#log("I", "db_discovery.go:333", `Using orchestrator pool with ${entries.length} orchestrators`);
    const listed: Record<string, unknown>[] = [];
    await Promise.all(
      entries.map(async ({ url }) => {
        let info: OrchestratorInfoMessage;
        try {
          info = await this.#connections.getOrchestrator(url, POLL_TIMEOUT_MS);
        } catch (err) {
          this.#log("E", "db_discovery.go:499", (err as Error).message);
          return;
        }
        if (info.address.length === 0) {
          this.#log("E", "db_discovery.go:499", `missing ETH address orch=${info.transcoder}`);
          return;
        }
        if (!info.priceInfo) {
          this.#log("E", "db_discovery.go:499", `missing price info orch=${info.transcoder}`);
          return;
        }
        listed.push(networkEntry(info));
      }),
    );
    if (!this.#stopped) this.#orchestrators = listed.length > 0 ? listed : undefined;
  }

  answer(res: ServerResponse): void {
    const body = JSON.stringify({
      capabilities_names: CAPABILITY_NAMES,
      orchestrators: this.#orchestrators ?? null,
      Simulated: true,
    });
    if (this.#orchestrators) {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(body);
      return;
    }
    const why = "network capabilities not available";
    this.#log("E", "handlers.go:1750", `HTTP Response Error statusCode=500 err=${why}`);
    res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
    res.end(`${why}\n${body}`);
  }
}
