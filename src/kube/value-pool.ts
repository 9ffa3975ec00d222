// One frozen copy of each small value that repeats across cached objects. Strings are pooled
// already (string-pool.ts); what remained were the objects that hold them, built afresh for every
// object read: each child's ownerReferences (an Orchestrator's five children name the same
// owner), its labels, a spec that many Orchestrators and their Services share, and status
// conditions that read the same on many Orchestrators. In a heap snapshot at 1,000 Orchestrators
// those copies were 3.5 of the 7.4 KB each Orchestrator costs (ownerReferences 1.3 MB, specs
// 1.2, conditions 0.6, labels 0.4).
//
// A shared value is frozen (deeply): a reconciler that tried to change a cached object in place
// would change every object sharing it, so it gets a TypeError instead. The values handed in are
// never frozen or changed: the pool keeps a copy the first time it sees one.
//
// Bounded like the string pool: values heavier than MAX_WEIGHT are left alone, and a full pool
// starts over (values already shared stay shared; the next copy of each becomes the new one). It
// is keyed by a 32-bit hash, so it holds no key strings; two different values with the same hash
// are both kept, the second unshared.

const CAPACITY = 32_768;
/** Strings' characters plus one per value: a Service's spec, a pod template, not a whole status. */
const MAX_WEIGHT = 2_048;

type Plain = Record<string, unknown>;

export class ValuePool {
  readonly #values = new Map<number, unknown>();
  readonly #capacity: number;
  #resets = 0;

  constructor(capacity = CAPACITY) {
    this.#capacity = capacity;
  }

  /**
   * The pool's frozen copy of `value` when it holds an equal one (same keys in the same order,
   * same values), else a frozen copy it keeps from now on. Strings, numbers, null and values too
   * heavy to share come back as they are.
   */
  share<T>(value: T): T {
    if (value === null || typeof value !== "object") return value;
    const hash = hashOf(value, 0x811c9dc5, { weight: 0 });
    if (hash === undefined) return value;
    const held = this.#values.get(hash);
    if (held !== undefined) return equal(held, value) ? (held as T) : value;
    if (this.#values.size >= this.#capacity) {
      this.#values.clear();
      this.#resets++;
    }
    const copy = frozenCopy(value);
    this.#values.set(hash, copy);
    return copy;
  }

  get size(): number {
    return this.#values.size;
  }

  /** How often the pool filled up and started over (diagnostics and tests). */
  get resets(): number {
    return this.#resets;
  }
}

/** The pool every informer in this process shares (an owner is named by children of all kinds). */
export const sharedValues = new ValuePool();

/**
 * `obj` with its parts that repeat across objects (labels, ownerReferences, spec, each status
 * condition) replaced by the pool's shared copies. A new top-level object, metadata, status and
 * conditions list: `obj` itself is not changed.
 */
export function shareParts<T extends object>(obj: T, pool: ValuePool): T {
  const o = obj as Plain;
  const out: Plain = { ...o };
  const metadata = o.metadata as Plain | undefined;
  if (metadata && typeof metadata === "object") {
    const m: Plain = { ...metadata };
    if (m.labels !== undefined) m.labels = pool.share(m.labels);
    if (m.ownerReferences !== undefined) m.ownerReferences = pool.share(m.ownerReferences);
    out.metadata = m;
  }
  if (o.spec !== undefined) out.spec = pool.share(o.spec);
  const status = o.status as Plain | undefined;
  if (status && typeof status === "object" && Array.isArray(status.conditions)) {
    out.status = { ...status, conditions: status.conditions.map((c: unknown) => pool.share(c)) };
  }
  return out as T;
}

/** FNV-1a over the value's structure; undefined once it weighs more than MAX_WEIGHT. */
function hashOf(v: unknown, h: number, acc: { weight: number }): number | undefined {
  if (++acc.weight > MAX_WEIGHT) return undefined;
  switch (typeof v) {
    case "string":
      acc.weight += v.length;
      if (acc.weight > MAX_WEIGHT) return undefined;
      h = Math.imul(h ^ 0x73, 16777619);
      for (let i = 0; i < v.length; i++) h = Math.imul(h ^ v.charCodeAt(i), 16777619);
      return h;
    case "number":
      return hashOf(String(v), Math.imul(h ^ 0x6e, 16777619), acc);
    case "boolean":
      return Math.imul(h ^ (v ? 0x74 : 0x66), 16777619);
    case "undefined":
      return Math.imul(h ^ 0x75, 16777619);
    case "object": {
      if (v === null) return Math.imul(h ^ 0x7a, 16777619);
      let x: number | undefined = Math.imul(h ^ (Array.isArray(v) ? 0x5b : 0x7b), 16777619);
      if (Array.isArray(v)) {
        for (const item of v) {
          x = hashOf(item, x, acc);
          if (x === undefined) return undefined;
        }
      } else {
        if (Object.getPrototypeOf(v) !== Object.prototype) return undefined;
        for (const k in v) {
          x = hashOf(k, x, acc);
          if (x === undefined) return undefined;
          x = hashOf((v as Plain)[k], x, acc);
          if (x === undefined) return undefined;
        }
      }
      return Math.imul(x ^ 0x7d, 16777619);
    }
    default:
      return undefined; // functions, symbols, bigints: not data read from the API server
  }
}

/** Same structure: same keys in the same order, equal values (not merely equal JSON). */
function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i] || !equal((a as Plain)[k], (b as Plain)[k])) return false;
  }
  return true;
}

function frozenCopy<T>(v: T): T {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return Object.freeze(v.map(frozenCopy)) as T;
  const out: Plain = {};
  for (const k in v) out[k] = frozenCopy((v as Plain)[k]);
  return Object.freeze(out) as T;
}
