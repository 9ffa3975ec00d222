// A gauge whose series belong to objects (a resource's findings, conditions, numeric facts): an
// object's series are replaced as a whole and rendered into label sets only when scraped.
// prom-client's Gauge keeps every series as a label object plus a string of all its labels
// (about 330 bytes a series: 16 MB for 5,000 Orchestrators with ten series each) and hashes them
// on every set; here an object keeps one flat array, and an unchanged one is not touched.
//
// Label sets repeat across objects (every Ready Orchestrator has {type: Ready, status: True,
// reason: ...}): the gauge keeps one frozen copy of each distinct label set (a bounded pool) and
// an object holds [labels, value, labels, value, ...] pointing at the shared copies, about 8
// bytes a series instead of 100. The object's kind, namespace and name are read back from its
// key when scraped.
import type { Registry } from "prom-client";
import { flatString } from "./flat-string.ts";

export type ObjectRef = { kind: string; namespace: string; name: string };

/** One series of an object: its own labels (besides kind, namespace, name) and its value. */
export type ObjectSeries<L extends string> = readonly [labels: Readonly<Record<L, string>>, value: number];

type Labels = Readonly<Record<string, string>>;

/**
 * An object's series, flat: labels (shared, frozen) at even indexes, the value after each.
 * Values 0 and 1 (most series) are small integers, stored in the array itself.
 */
type Held = readonly (Labels | number)[];

/**
 * Distinct label sets the pool keeps. Conditions, findings and facts have a few hundred at most;
 * past this the pool starts afresh (objects keep the copies they hold, new ones share again).
 */
const POOL_LIMIT = 4096;

export class ObjectGauge<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = "gauge";
  readonly aggregator = "sum";
  readonly labelNames: readonly string[];
  /** `kind/namespace/name` (a flat string) -> the object's series. */
  readonly #objects = new Map<string, Held>();
  /** Label names and values, in their order -> the one frozen copy of that label set. */
  readonly #pool = new Map<string, Labels>();

  constructor(o: { name: string; help: string; labelNames: readonly L[]; registers: Registry[] }) {
    this.name = o.name;
    this.help = o.help;
    this.labelNames = ["kind", "namespace", "name", ...o.labelNames];
    // prom-client's registry takes any metric that answers get() (its collector interface).
    for (const r of o.registers)
      r.registerMetric(this as unknown as Parameters<Registry["registerMetric"]>[0]);
  }

  /** Replaces the object's series (none: it has no series any more). */
  set(object: ObjectRef, series: readonly ObjectSeries<L>[]): void {
    // Kinds and namespaces have no slash, so the key splits back into the three (get()).
    const key = `${object.kind}/${object.namespace}/${object.name}`;
    if (series.length === 0) {
      this.#objects.delete(key);
      return;
    }
    const held = this.#objects.get(key);
    if (held && sameSeries(held, series)) return;
    // Sized once: an array grown by push keeps room for 16 more.
    const next = new Array<Labels | number>(2 * series.length);
    series.forEach(([labels, value], i) => {
      next[2 * i] = this.#share(labels);
      next[2 * i + 1] = value;
    });
    this.#objects.set(held ? key : flatString(key), next);
  }

  /** How many objects have series (diagnostics and tests). */
  get objects(): number {
    return this.#objects.size;
  }

  /** What prom-client's registry renders (its collector interface). */
  async get(): Promise<{
    name: string;
    help: string;
    type: "gauge";
    aggregator: "sum";
    values: { labels: Record<string, string>; value: number }[];
  }> {
    const values: { labels: Record<string, string>; value: number }[] = [];
    for (const [key, held] of this.#objects) {
      const first = key.indexOf("/");
      const second = key.indexOf("/", first + 1);
      const kind = key.slice(0, first);
      const namespace = key.slice(first + 1, second);
      const name = key.slice(second + 1);
      for (let i = 0; i < held.length; i += 2) {
        values.push({
          labels: { kind, namespace, name, ...(held[i] as Labels) },
          value: held[i + 1] as number,
        });
      }
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.#objects.clear();
  }

  /** The pool's copy of `labels` (same names, order and values). */
  #share(labels: Labels): Labels {
    // JSON quoting keeps the names and values apart whatever they contain.
    let id = "";
    for (const k in labels) id += `${JSON.stringify(k)}:${JSON.stringify(labels[k])},`;
    const pooled = this.#pool.get(id);
    if (pooled) return pooled;
    if (this.#pool.size >= POOL_LIMIT) this.#pool.clear();
    const copy = Object.freeze({ ...labels });
    this.#pool.set(id, copy);
    return copy;
  }
}

/** Whether `series` says what `held` holds (label sets compared by names and values). */
function sameSeries<L extends string>(held: Held, series: readonly ObjectSeries<L>[]): boolean {
  if (held.length !== 2 * series.length) return false;
  for (let i = 0; i < series.length; i++) {
    const [labels, value] = series[i]!;
    if (held[2 * i + 1] !== value) return false;
    const other = held[2 * i] as Labels;
    if (labels === other) continue;
    let n = 0;
    for (const k in labels) {
      if (labels[k] !== other[k]) return false;
      n++;
    }
    if (n !== Object.keys(other).length) return false;
  }
  return true;
}
