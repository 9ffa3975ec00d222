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
//
// A scrape renders the text itself (ObjectGaugeRegistry): through prom-client's registry every
// series became a label object and a string of its labels, about 50,000 of each at 5,000
// Orchestrators (6.9 MB of text, 2.5-3 s of a loaded controller's event loop). Here a line is
// the object's labels, its label set's text (rendered once per shared set) and its value, and
// the render yields to the event loop between batches of objects.
import { Registry } from "prom-client";
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

/** Objects rendered between two yields to the event loop while a scrape renders. */
const OBJECTS_PER_TURN = 500;

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
  /** A label set's text as it follows the object's labels: `,type="Ready",status="True"`. */
  readonly #labelText = new WeakMap<Labels, string>();

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

  /**
   * The gauge's Prometheus text exposition, exactly what prom-client's registry renders from
   * get(): `# HELP`, `# TYPE`, then a line per series.
   */
  async text(): Promise<string> {
    let text = "";
    for await (const chunk of this.chunks()) text += chunk;
    return text;
  }

  /**
   * text() in pieces, the `# HELP` and `# TYPE` lines first, then the lines of OBJECTS_PER_TURN
   * objects at a time (each after a newline), yielding to the event loop between them: a scrape
   * is streamed rather than held whole (ObjectGaugeRegistry.chunks). It renders the objects that
   * had series when it began; one set again meanwhile renders what it holds then, and once.
   */
  async *chunks(): AsyncGenerator<string> {
    const name = escapeText(this.name);
    yield `# HELP ${name} ${escapeText(this.help)}\n# TYPE ${name} ${this.type}`;
    const keys = [...this.#objects.keys()];
    for (let from = 0; from < keys.length; from += OBJECTS_PER_TURN) {
      if (from > 0) await new Promise((resolve) => setImmediate(resolve));
      let chunk = "";
      for (const key of keys.slice(from, from + OBJECTS_PER_TURN)) {
        const held = this.#objects.get(key);
        if (!held) continue;
        const first = key.indexOf("/");
        const second = key.indexOf("/", first + 1);
        const head =
          `\n${name}{kind="${escapeLabel(key.slice(0, first))}",` +
          `namespace="${escapeLabel(key.slice(first + 1, second))}",` +
          `name="${escapeLabel(key.slice(second + 1))}"`;
        for (let i = 0; i < held.length; i += 2) {
          chunk += `${head}${this.#textOf(held[i] as Labels)}} ${valueText(held[i + 1] as number)}`;
        }
      }
      if (chunk) yield chunk;
    }
  }

  reset(): void {
    this.#objects.clear();
  }

  #textOf(labels: Labels): string {
    let text = this.#labelText.get(labels);
    if (text === undefined) {
      text = "";
      for (const k in labels) text += `,${k}="${escapeLabel(labels[k]!)}"`;
      this.#labelText.set(labels, text);
    }
    return text;
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

/**
 * A prom-client Registry that renders its ObjectGauges' text itself (ObjectGauge.text) and every
 * other metric as prom-client does. It overrides prom-client's per-metric renderer
 * (`getMetricsAsString`, which `metrics()` calls for each metric; not in its type declarations):
 * object-gauge.test.ts fails if a prom-client upgrade stops calling it. Default labels and the
 * OpenMetrics format fall back to prom-client's rendering.
 */
export class ObjectGaugeRegistry extends Registry {
  #defaultLabels = false;

  /**
   * metrics() in pieces, to write to a response as they come (health-server.ts): a scrape at
   * 5,000 Orchestrators is 10 MB of text, which this way is never held whole. The pieces joined
   * are exactly metrics().
   */
  async *chunks(): AsyncGenerator<string> {
    if (this.#defaultLabels || this.contentType !== Registry.PROMETHEUS_CONTENT_TYPE) {
      yield await this.metrics();
      return;
    }
    let first = true;
    for (const metric of this.getMetricsAsArray() as unknown[]) {
      if (!first) yield "\n\n";
      first = false;
      if (metric instanceof ObjectGauge) yield* metric.chunks();
      else yield await promClientRender.call(this, metric);
    }
    yield "\n";
  }

  override setDefaultLabels(labels: object): void {
    this.#defaultLabels = Object.keys(labels).length > 0;
    super.setDefaultLabels(labels);
  }

  async getMetricsAsString(metric: unknown): Promise<string> {
    if (
      metric instanceof ObjectGauge &&
      !this.#defaultLabels &&
      this.contentType === Registry.PROMETHEUS_CONTENT_TYPE
    ) {
      return metric.text();
    }
    return promClientRender.call(this, metric);
  }
}

const promClientRender = (
  Registry.prototype as unknown as { getMetricsAsString(this: Registry, metric: unknown): Promise<string> }
).getMetricsAsString;

// prom-client's escaping: a HELP text and a metric name escape backslash and newline; a label
// value also the double quote. Its value text: NaN as "Nan", infinities as "+Inf" and "-Inf".
function escapeText(s: string): string {
  if (!/[\\\n]/.test(s)) return s;
  return s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function escapeLabel(s: string): string {
  if (!/[\\\n"]/.test(s)) return s;
  return escapeText(s).replace(/"/g, '\\"');
}

function valueText(value: number): string {
  if (Number.isNaN(value)) return "Nan";
  if (!Number.isFinite(value)) return value < 0 ? "-Inf" : "+Inf";
  return `${value}`;
}
