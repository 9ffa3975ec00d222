// One copy of each string that repeats across cached objects. Every object read from the API
// server is parsed into fresh strings: "livepeer.org/v1alpha1" and "apps/v1", the managed-by and
// component label values, condition types, reasons and templated messages, the owner's name in
// each child's labels and ownerReferences, the timestamps of a burst. At 1,000 Orchestrators
// those copies were 4.5 MB of the controller's 48 MB live heap (a heap snapshot, grouped by
// content). The informers pass every cached object through a pool, which hands back the copy
// it already holds.
//
// Uids are pooled too: an owner's uid is in each of its children's ownerReferences.
//
// Bounded: strings longer than MAX_LENGTH are left alone, and a full pool starts over (strings
// already shared stay shared; the next copy of each becomes the new one), so the pool never
// holds more than CAPACITY strings of at most MAX_LENGTH characters for objects gone long ago
// (about 1.2 MB for its table when full; 5,000 Orchestrators and their children bring about
// 15 distinct strings each). A resourceVersion is unique per version and is not offered to it.

const CAPACITY = 32_768;
const MAX_LENGTH = 256;
/** Keys whose values are unique per object version: pooling them would only churn the pool. */
const UNIQUE_KEYS = new Set(["resourceVersion"]);

export class StringPool {
  readonly #strings = new Map<string, string>();
  readonly #capacity: number;
  #resets = 0;

  constructor(capacity = CAPACITY) {
    this.#capacity = capacity;
  }

  /** The pool's copy of `s` (`s` itself the first time). */
  intern(s: string): string {
    if (s.length > MAX_LENGTH) return s;
    const held = this.#strings.get(s);
    if (held !== undefined) return held;
    if (this.#strings.size >= this.#capacity) {
      this.#strings.clear();
      this.#resets++;
    }
    this.#strings.set(s, s);
    return s;
  }

  /**
   * Replaces, in place, every string value in `value` (objects and arrays, any depth) with the
   * pool's copy. Equal strings are indistinguishable, so this changes nothing anyone can read.
   */
  internAll<T>(value: T): T {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        if (typeof v === "string") value[i] = this.intern(v);
        else if (v !== null && typeof v === "object") this.internAll(v);
      }
    } else if (value !== null && typeof value === "object") {
      const o = value as Record<string, unknown>;
      for (const k in o) {
        const v = o[k];
        if (typeof v === "string") {
          if (!UNIQUE_KEYS.has(k)) o[k] = this.intern(v);
        } else if (v !== null && typeof v === "object") this.internAll(v);
      }
    }
    return value;
  }

  get size(): number {
    return this.#strings.size;
  }

  /** How often the pool filled up and started over (diagnostics and tests). */
  get resets(): number {
    return this.#resets;
  }
}

/** The pool every informer in this process shares (a label value is the same in every cache). */
export const sharedStrings = new StringPool();
