// Group commit: callers add items one at a time and each gets its own answer, but the items are
// written in batches: while one batch is being written, the next one gathers. Under load a batch
// holds everything that arrived during the previous write; when idle a lone item goes at once.
// So a store pays one transaction per batch, not per event or per attempt. `lingerMs` makes a
// batch that starts after a quiet spell wait that long for company (a server-side store pays a
// fixed cost per statement; see engine.ts).

export class GroupCommit<T, R> {
  readonly #write: (items: T[]) => Promise<R[]>;
  readonly #maxBatch: number;
  readonly #lingerMs: number;
  #queue: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  #writing: Promise<void> | undefined;

  /** `write` answers one R per item, in order; a throw fails every item of that batch. */
  constructor(write: (items: T[]) => Promise<R[]>, opts: { maxBatch?: number; lingerMs?: number } = {}) {
    this.#write = write;
    this.#maxBatch = opts.maxBatch ?? 500;
    this.#lingerMs = opts.lingerMs ?? 0;
  }

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#writing ??= this.#drain();
    });
  }

  /** Items waiting or being written. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Resolves once everything added so far is written (or failed). */
  async flushed(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  async #drain(): Promise<void> {
    // Let everything this turn of the event loop brings (e.g. a burst of responses) join the first batch.
    await new Promise((resolve) =>
      this.#lingerMs > 0 ? setTimeout(resolve, this.#lingerMs) : setImmediate(resolve),
    );
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.#maxBatch);
        try {
          const results = await this.#write(batch.map((b) => b.item));
          batch.forEach((b, i) => {
            b.resolve(results[i] as R);
          });
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.#writing = undefined;
    }
  }
}
