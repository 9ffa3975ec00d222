// What a read by name showed, remembered for a while. The controller reads some Secrets by name
// instead of caching them (it may not list or watch Secrets in users' namespaces), and a burst of
// reconciles (a node joining wakes every Orchestrator) must not become a GET each. Expired
// entries are swept at most once per lifetime, so memory follows what was read recently.
export class Remembered<T> {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { value: T; at: number }>();
  #sweptAt: number;

  constructor(ttlMs: number, now: () => number = Date.now) {
    this.#ttlMs = ttlMs;
    this.#now = now;
    this.#sweptAt = now();
  }

  /** The value remembered for `key` if it is younger than the lifetime. */
  get(key: string): T | undefined {
    const now = this.#now();
    this.#sweep(now);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (now - entry.at < this.#ttlMs) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, value: T): void {
    this.#entries.set(key, { value, at: this.#now() });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  #sweep(now: number): void {
    if (now - this.#sweptAt < this.#ttlMs) return;
    this.#sweptAt = now;
    for (const [key, entry] of this.#entries) if (now - entry.at >= this.#ttlMs) this.#entries.delete(key);
  }
}
