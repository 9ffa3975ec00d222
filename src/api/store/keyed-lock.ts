// Runs tasks for the same key one after another (different keys in parallel). Concurrent writes
// to one webhook in this process then never race each other for the resourceVersion; conflicts
// with other writers (replicas, kubectl, the controller) are still retried by the caller.
export class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve();
    const result = before.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  get size(): number {
    return this.#tails.size;
  }
}
