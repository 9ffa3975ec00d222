// When each gateway stream started, as this API replica saw its first -authWebhookUrl call: a
// repeated call for a stream already open (a segment retried before the node registered the
// stream, a second publish to a live name) gets the same start time, hence the same
// stream.started id. An entry ends with the stream's end report, or after `windowMs` (a lost end
// report must not swallow the next stream of that name). This replica's memory; stream-starts.ts
// agrees starts with the other replicas (and a restarted one) through the delivery store.

export const OPEN_STREAM_WINDOW_MS = 10 * 60_000;
const MAX_OPEN_STREAMS = 100_000;

export class OpenStreams {
  readonly #startedAt = new Map<string, number>();
  readonly #windowMs: number;

  constructor(windowMs = OPEN_STREAM_WINDOW_MS) {
    this.#windowMs = windowMs;
  }

  /** The stream's start time: `now` for a new stream, the first call's for an open one. */
  start(gatewayUid: string, streamId: string, now: number): number {
    const key = `${gatewayUid}\u0000${streamId}`;
    const known = this.#startedAt.get(key);
    if (known !== undefined && now - known < this.#windowMs) return known;
    this.#startedAt.delete(key);
    // Oldest first (insertion order): past the bound, the oldest is dropped.
    if (this.#startedAt.size >= MAX_OPEN_STREAMS) {
      const oldest = this.#startedAt.keys().next().value;
      if (oldest !== undefined) this.#startedAt.delete(oldest);
    }
    this.#startedAt.set(key, now);
    return now;
  }

  /** The start the replicas agreed on (stream-starts.ts) replaces this replica's own. */
  adopt(gatewayUid: string, streamId: string, startedAt: number): void {
    const key = `${gatewayUid}\u0000${streamId}`;
    if (this.#startedAt.has(key)) this.#startedAt.set(key, startedAt);
  }

  get windowMs(): number {
    return this.#windowMs;
  }

  end(gatewayUid: string, streamId: string): void {
    this.#startedAt.delete(`${gatewayUid}\u0000${streamId}`);
  }

  get size(): number {
    return this.#startedAt.size;
  }
}
