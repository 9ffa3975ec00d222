// A gauge whose series belong to objects (a resource's findings, conditions, numeric facts): an
// object's series are replaced as a whole and rendered into label sets only when scraped.
// prom-client's Gauge keeps every series as a label object plus a string of all its labels
// (about 330 bytes a series: 16 MB for 5,000 Orchestrators with ten series each) and hashes them
// on every set; here an object keeps one small array, and an unchanged one is not touched.
import type { Registry } from "prom-client";

export type ObjectRef = { kind: string; namespace: string; name: string };

/** One series of an object: its own labels (besides kind, namespace, name) and its value. */
export type ObjectSeries<L extends string> = readonly [labels: Readonly<Record<L, string>>, value: number];

export class ObjectGauge<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = "gauge";
  readonly aggregator = "sum";
  readonly labelNames: readonly string[];
  readonly #objects = new Map<string, { object: ObjectRef; series: readonly ObjectSeries<L>[] }>();

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
    const key = `${object.kind}/${object.namespace}/${object.name}`;
    if (series.length === 0) {
      this.#objects.delete(key);
      return;
    }
    const held = this.#objects.get(key);
    if (held && sameSeries(held.series, series)) return;
    this.#objects.set(key, { object: held?.object ?? { ...object }, series });
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
    for (const { object, series } of this.#objects.values()) {
      for (const [labels, value] of series) {
        values.push({
          labels: { kind: object.kind, namespace: object.namespace, name: object.name, ...labels },
          value,
        });
      }
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.#objects.clear();
  }
}

function sameSeries<L extends string>(a: readonly ObjectSeries<L>[], b: readonly ObjectSeries<L>[]): boolean {
  if (a.length !== b.length) return false;
  return a.every(([labels, value], i) => {
    const [other, otherValue] = b[i]!;
    if (value !== otherValue) return false;
    const keys = Object.keys(labels) as L[];
    return keys.length === Object.keys(other).length && keys.every((k) => labels[k] === other[k]);
  });
}
