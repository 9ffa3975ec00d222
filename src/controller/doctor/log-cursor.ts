// Where a node's log was read up to, for periodic reads with `sinceTime`. The API takes sinceTime
// to the second and returns every line from that second on, so each read starts with lines
// already seen: the cursor remembers the last line's exact timestamp and how many lines carried
// it, and hands out only what comes after.
import type { PodLogRead } from "./pod-log-source.ts";

/** A line read with `timestamps=true`: "<RFC 3339 with nanoseconds> <text>". */
export interface TimedLine {
  /** Nanoseconds since the epoch (exact, for ordering). */
  ns: bigint;
  at: Date;
  text: string;
}

const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d) ?/;

export function parseTimedLine(line: string): TimedLine | undefined {
  const m = STAMP.exec(line);
  if (!m) return undefined;
  const seconds = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(seconds)) return undefined;
  const fraction = (m[2] ?? "").padEnd(9, "0");
  const ns = BigInt(seconds) * 1_000_000n + BigInt(fraction);
  return { ns, at: new Date(seconds + Number(fraction.slice(0, 3))), text: line.slice(m[0].length) };
}

export class LogCursor {
  #lastNs: bigint | undefined;
  /** Lines handed out with exactly #lastNs. */
  #atLast = 0;
  /** During a read: lines with #lastNs still to skip (seen in an earlier read). */
  #skip = 0;

  /** Where the next read starts: the last lines at first, then the last line's second. */
  from(firstReadTailLines: number): PodLogRead["from"] {
    if (this.#lastNs === undefined) return { tailLines: firstReadTailLines };
    return { since: new Date(Number(this.#lastNs / 1_000_000_000n) * 1000) };
  }

  /** Call before handing a new read's lines to accept(). */
  beginRead(): void {
    this.#skip = this.#atLast;
  }

  /** Whether the line is new; advances the cursor when it is. */
  accept(line: TimedLine): boolean {
    const last = this.#lastNs;
    if (last !== undefined && line.ns < last) return false;
    if (last !== undefined && line.ns === last) {
      if (this.#skip > 0) {
        this.#skip--;
        return false;
      }
      this.#atLast++;
      return true;
    }
    this.#lastNs = line.ns;
    this.#atLast = 1;
    this.#skip = 0;
    return true;
  }

  get position(): bigint | undefined {
    return this.#lastNs;
  }

  /**
   * After a read that was cut at its byte limit and brought nothing new: more lines share one
   * second than a read can carry, and sinceTime cannot point inside a second. Move on to the
   * next second (those lines are lost; the caller says so).
   */
  skipSecond(): void {
    if (this.#lastNs === undefined) return;
    this.#lastNs = (this.#lastNs / 1_000_000_000n + 1n) * 1_000_000_000n;
    this.#atLast = 0;
    this.#skip = 0;
  }
}
