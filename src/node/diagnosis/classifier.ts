// Turns a node's log, line by line, into findings. Memory stays bounded whatever the log's length:
// per condition a count, the first and last line and a few samples; nothing else is kept.
import { CATALOG } from "./catalog.ts";
import { type CatalogEntry, type LogFinding, SEVERITY_ORDER } from "./types.ts";

export interface ClassifierOptions {
  catalog?: readonly CatalogEntry[];
  /** Distinct sample lines kept per condition. */
  maxSamples?: number;
  /** Longer lines are cut (with a marker) before they are kept. */
  maxLineLength?: number;
}

interface Matcher {
  entry: CatalogEntry;
  patterns: RegExp[];
}

/**
 * Which catalog conditions a line shows, and nothing else: no memory of earlier lines, so one
 * instance serves any number of logs (the controller shares one across every pod it reads).
 */
export class ConditionMatcher {
  readonly #matchers: Matcher[];
  // One alternation of every pattern: most lines match nothing, and one regex run says so.
  readonly #anyPattern: RegExp;

  constructor(catalog: readonly CatalogEntry[] = CATALOG) {
    this.#matchers = catalog
      .map((entry) => ({
        entry,
        patterns: entry.recognizedBy.flatMap((r) => (r.kind === "log" ? [r.pattern] : [])),
      }))
      .filter((m) => m.patterns.length > 0);
    const sources = this.#matchers.flatMap((m) => m.patterns.map((p) => `(?:${p.source})`));
    this.#anyPattern = sources.length > 0 ? new RegExp(sources.join("|"), "i") : /(?!)/;
  }

  /** Catalog entries with a log pattern. */
  get entries(): CatalogEntry[] {
    return this.#matchers.map((m) => m.entry);
  }

  /** Ids of the conditions the line shows (usually none). */
  match(line: string): string[] {
    if (!this.#anyPattern.test(line)) return [];
    return this.#matchers.filter((m) => m.patterns.some((p) => p.test(line))).map((m) => m.entry.id);
  }
}

interface Tally {
  count: number;
  firstLine: string;
  firstLineNumber: number;
  lastLine: string;
  lastLineNumber: number;
  samples: string[];
}

export class LogClassifier {
  #matcher: ConditionMatcher;
  #tallies = new Map<string, Tally>();
  #maxSamples: number;
  #maxLineLength: number;
  #lines = 0;

  constructor(options: ClassifierOptions = {}) {
    this.#matcher = new ConditionMatcher(options.catalog ?? CATALOG);
    this.#maxSamples = options.maxSamples ?? 3;
    this.#maxLineLength = options.maxLineLength ?? 2000;
  }

  /** Lines seen so far. */
  get lines(): number {
    return this.#lines;
  }

  /** Classifies one line; returns the ids of the conditions it shows (usually none). */
  push(line: string): string[] {
    this.#lines++;
    const ids = this.#matcher.match(line);
    for (const id of ids) this.#record(id, line);
    return ids;
  }

  #record(id: string, rawLine: string): void {
    const line =
      rawLine.length > this.#maxLineLength ? `${rawLine.slice(0, this.#maxLineLength)}...` : rawLine;
    const tally = this.#tallies.get(id);
    if (!tally) {
      this.#tallies.set(id, {
        count: 1,
        firstLine: line,
        firstLineNumber: this.#lines,
        lastLine: line,
        lastLineNumber: this.#lines,
        samples: [line],
      });
      return;
    }
    tally.count++;
    tally.lastLine = line;
    tally.lastLineNumber = this.#lines;
    if (tally.samples.length < this.#maxSamples && !tally.samples.includes(line)) tally.samples.push(line);
  }

  /** What was seen, errors first, then warnings, then normal conditions; in order of appearance. */
  findings(): LogFinding[] {
    const byId = new Map(this.#matcher.entries.map((e) => [e.id, e]));
    return [...this.#tallies.entries()]
      .map(([id, t]): LogFinding => {
        const entry = byId.get(id)!;
        return {
          id,
          severity: entry.severity,
          condition: entry.condition,
          message: `${entry.condition}: seen ${t.count} time${t.count === 1 ? "" : "s"}`,
          meaning: entry.meaning,
          action: entry.action,
          count: t.count,
          firstLine: t.firstLine,
          firstLineNumber: t.firstLineNumber,
          lastLine: t.lastLine,
          lastLineNumber: t.lastLineNumber,
          samples: [...t.samples],
        };
      })
      .sort(
        (a, b) =>
          SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) ||
          a.firstLineNumber - b.firstLineNumber,
      );
  }
}

/** Classifies a whole stream of lines (e.g. from linesOf) without holding it in memory. */
export async function classifyLines(
  lines: AsyncIterable<string> | Iterable<string>,
  options: ClassifierOptions = {},
): Promise<{ findings: LogFinding[]; lines: number }> {
  const classifier = new LogClassifier(options);
  for await (const line of lines) classifier.push(line);
  return { findings: classifier.findings(), lines: classifier.lines };
}
