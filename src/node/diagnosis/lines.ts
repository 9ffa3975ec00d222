// A byte stream (file, stdin, a followed pod log) as lines, without reading it all first.
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";

export function linesOf(input: Readable): AsyncIterable<string> {
  return createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
}
