// Findings recognised in a node's log, per primary object: which condition, which pod printed it,
// when first and last. A line is an event, so each catalog entry says when its finding stops
// being in force (clears): after a quiet spell, or once a container started after the last
// matching line is Ready. Pure: time and the pods' state come in as arguments.
import { CATALOG_BY_ID, type CatalogEntry, type Clearing } from "../../node/diagnosis/index.ts";

export interface LogOccurrence {
  id: string;
  /** The pod that printed it; "" when carried over from an earlier status (pod unknown). */
  pod: string;
  firstAt: Date;
  lastAt: Date;
  /** The first matching line (cut to a readable length). */
  line: string;
  /** The earlier status's message, for an occurrence carried over without its line. */
  message?: string;
}

/** What a clearing rule needs to know about a pod now. */
export interface PodLife {
  pod: string;
  ready: boolean;
  /** When the current container started; undefined while none runs. */
  startedAt?: Date | undefined;
}

const MAX_LINE = 300;

export function stillInForce(
  o: LogOccurrence,
  clears: Clearing | undefined,
  now: Date,
  pods: readonly PodLife[],
): boolean {
  if (!clears) return true;
  if (clears.after === "quiet") return now.getTime() - o.lastAt.getTime() < clears.minutes * 60_000;
  const restartedSince = (p: PodLife) => p.ready && !!p.startedAt && p.startedAt > o.lastAt;
  if (o.pod === "") return !(pods.length > 0 && pods.every(restartedSince));
  const pod = pods.find((p) => p.pod === o.pod);
  // The pod that printed it is gone: its successor shows its own lines.
  if (!pod) return false;
  return !restartedSince(pod);
}

export class LogFindings {
  readonly #byKey = new Map<string, LogOccurrence>();
  readonly #catalog: ReadonlyMap<string, CatalogEntry>;

  constructor(catalog: ReadonlyMap<string, CatalogEntry> = CATALOG_BY_ID) {
    this.#catalog = catalog;
  }

  record(id: string, pod: string, at: Date, line: string): void {
    const key = `${id}\u0000${pod}`;
    const o = this.#byKey.get(key);
    if (!o) {
      const cut = line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}...` : line;
      this.#byKey.set(key, { id, pod, firstAt: at, lastAt: at, line: cut });
      return;
    }
    if (at < o.firstAt) o.firstAt = at;
    if (at > o.lastAt) o.lastAt = at;
  }

  /** Carries a finding of an earlier status over (its lines may be older than the first read). */
  seed(id: string, since: Date, message: string): void {
    const key = `${id}\u0000`;
    if (!this.#byKey.has(key))
      this.#byKey.set(key, { id, pod: "", firstAt: since, lastAt: since, line: "", message });
  }

  /** The occurrences still in force; cleared ones are forgotten. */
  inForce(now: Date, pods: readonly PodLife[]): LogOccurrence[] {
    const out: LogOccurrence[] = [];
    for (const [key, o] of this.#byKey) {
      if (stillInForce(o, this.#catalog.get(o.id)?.clears, now, pods)) out.push(o);
      else this.#byKey.delete(key);
    }
    return out;
  }

  get size(): number {
    return this.#byKey.size;
  }
}
