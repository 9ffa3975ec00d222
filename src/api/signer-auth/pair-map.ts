// A map keyed by two strings, one Map inside another: a lookup per payment builds no joined key
// (a joined key is a new string to flatten and hash on every call; measured in the ledger).
export class PairMap<V> {
  readonly #outer = new Map<string, Map<string, V>>();

  get(a: string, b: string): V | undefined {
    return this.#outer.get(a)?.get(b);
  }

  set(a: string, b: string, value: V): void {
    let inner = this.#outer.get(a);
    if (!inner) {
      inner = new Map();
      this.#outer.set(a, inner);
    }
    inner.set(b, value);
  }

  /** Removes the entries `drop` picks (and the inner maps left empty). */
  deleteWhere(drop: (value: V, b: string, a: string) => boolean): void {
    for (const [a, inner] of this.#outer) {
      for (const [b, v] of inner) if (drop(v, b, a)) inner.delete(b);
      if (inner.size === 0) this.#outer.delete(a);
    }
  }
}
