// The informer's cache: objects by key, with optional indexes ("webhooks by the Secret they
// reference") so event mapping stays O(matches) instead of scanning every object.
import { type KubeObject, keyOf, type ObjectKey } from "./objects.ts";

export type IndexFunc<T> = (obj: T) => string[];

export class Store<T extends KubeObject = KubeObject> {
  readonly #items = new Map<ObjectKey, T>();
  readonly #indexers = new Map<string, IndexFunc<T>>();
  readonly #indices = new Map<string, Map<string, Set<ObjectKey>>>();

  get(key: ObjectKey): T | undefined {
    return this.#items.get(key);
  }

  list(namespace?: string): T[] {
    const all = [...this.#items.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata?.namespace === namespace);
  }

  keys(): ObjectKey[] {
    return [...this.#items.keys()];
  }

  get size(): number {
    return this.#items.size;
  }

  addIndex(name: string, fn: IndexFunc<T>): void {
    if (this.#indexers.has(name)) throw new Error(`index ${name} is already defined on this cache`);
    this.#indexers.set(name, fn);
    const index = new Map<string, Set<ObjectKey>>();
    this.#indices.set(name, index);
    for (const [key, obj] of this.#items) for (const v of fn(obj)) addTo(index, v, key);
  }

  byIndex(name: string, value: string): T[] {
    const index = this.#indices.get(name);
    if (!index) throw new Error(`no index named ${name}: add it with addIndex() before starting`);
    return [...(index.get(value) ?? [])]
      .map((k) => this.#items.get(k))
      .filter((o): o is T => o !== undefined);
  }

  /** Stores `obj`; returns the previous version. */
  upsert(obj: T): T | undefined {
    const key = keyOf(obj);
    const old = this.#items.get(key);
    if (old) this.#unindex(key, old);
    this.#items.set(key, obj);
    for (const [name, fn] of this.#indexers) for (const v of fn(obj)) addTo(this.#indices.get(name)!, v, key);
    return old;
  }

  remove(key: ObjectKey): T | undefined {
    const old = this.#items.get(key);
    if (!old) return undefined;
    this.#unindex(key, old);
    this.#items.delete(key);
    return old;
  }

  #unindex(key: ObjectKey, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name)!;
      for (const v of fn(obj)) {
        const set = index.get(v);
        set?.delete(key);
        if (set?.size === 0) index.delete(v);
      }
    }
  }
}

function addTo(index: Map<string, Set<ObjectKey>>, value: string, key: ObjectKey): void {
  let set = index.get(value);
  if (!set) {
    set = new Set();
    index.set(value, set);
  }
  set.add(key);
}
