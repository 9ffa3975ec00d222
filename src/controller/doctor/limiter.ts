// At most N tasks at once, the rest wait in order: 5,000 nodes to read must not become 5,000
// sockets opened in the same millisecond.

export class Limiter {
  readonly #max: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(max: number) {
    if (!(max >= 1)) throw new Error(`a limiter needs at least one slot, got ${max}`);
    this.#max = max;
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.#max) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#active++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      // The slot passes straight to the next task: `active` stays the same.
      if (next) next();
      else this.#active--;
    }
  }
}
