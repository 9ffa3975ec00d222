// The chain reads of a whole process: one RpcReader per RPC endpoint, so every node on the same
// RPC shares its head, its contract addresses and its per-block reads, and the endpoint's request
// rate is bounded once, however many nodes use it. The controller holds one of these; the CLI
// makes one per run. Endpoints unused for `idleMs` are dropped (their caches with them).
import { RpcReader, type RpcReaderOptions } from "./rpc-reader.ts";
import type { RpcUrl } from "./rpc-url.ts";

export interface ChainReadsOptions extends RpcReaderOptions {
  /** Drop an endpoint's reader after this long unused (default 30 min). */
  idleMs?: number;
}

export interface EndpointStats {
  /** The endpoint, redacted. */
  endpoint: string;
  httpRequests: number;
  calls: number;
  failedRequests: number;
  cacheHits: number;
}

export class ChainReads {
  private readonly opts: ChainReadsOptions;
  private readonly readers = new Map<string, RpcReader>();
  /** The clock every read is timed by (injectable for tests). */
  readonly now: () => number;

  constructor(opts: ChainReadsOptions = {}) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
  }

  reader(rpc: RpcUrl): RpcReader {
    const now = this.now();
    const idleMs = this.opts.idleMs ?? 1_800_000;
    for (const [url, r] of this.readers) if (now - r.lastUsed > idleMs) this.readers.delete(url);
    let reader = this.readers.get(rpc.url);
    if (!reader) {
      reader = new RpcReader(rpc, this.opts);
      this.readers.set(rpc.url, reader);
    }
    return reader;
  }

  stats(): EndpointStats[] {
    return [...this.readers.values()].map((r) => ({
      endpoint: r.client.rpc.shown,
      ...r.client.stats,
      cacheHits: r.cacheHits,
    }));
  }
}
