// Where an orchestrator keeps the renditions it answers a segment with, for the gateway to download:
// the node's memory object store, served on its service port under /stream/<session>/<rendition>/
// <seq>.ts (server/segment_rpc.go SaveData, drivers' memory storage). Renditions expire: a gateway
// downloads them right after the answer, and the simulator must not grow with a long stream.
export const RENDITION_TTL_MS = 120_000;
const MAX_RENDITIONS = 1_000;

export class RenditionStore {
  readonly #items = new Map<string, { data: Buffer; expires: number }>();
  readonly #ttlMs: number;

  constructor(ttlMs = RENDITION_TTL_MS) {
    this.#ttlMs = ttlMs;
  }

  /** Stores the data; answers its path on the service port. */
  save(sessionId: string, rendition: string, seq: string, data: Buffer, now = Date.now()): string {
    this.#expire(now);
    const path = `/stream/${encodeURIComponent(sessionId)}/${encodeURIComponent(rendition)}/${seq}.ts`;
    this.#items.delete(path);
    this.#items.set(path, { data, expires: now + this.#ttlMs });
    while (this.#items.size > MAX_RENDITIONS) this.#items.delete(this.#items.keys().next().value!);
    return path;
  }

  get(path: string, now = Date.now()): Buffer | undefined {
    const item = this.#items.get(path);
    if (!item) return undefined;
    if (item.expires <= now) {
      this.#items.delete(path);
      return undefined;
    }
    return item.data;
  }

  get size(): number {
    return this.#items.size;
  }

  #expire(now: number): void {
    // Insertion order is expiry order (one TTL for all): stop at the first one still valid.
    for (const [path, item] of this.#items) {
      if (item.expires > now) break;
      this.#items.delete(path);
    }
  }
}
