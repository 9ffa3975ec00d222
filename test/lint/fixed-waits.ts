// A fixed wait followed by an assertion is a check that passes for the wrong reason: a "nothing
// happened" after sleep(1000) passes when the wrong thing happens at 1001 ms, and a positive
// after a sleep flakes on a busy machine. This lint finds them in test code: a statement that
// only waits a fixed time (`await sleep(...)`, `await new Promise((r) => setTimeout(r, ...))`,
// `await setTimeout(...)` of node:timers/promises, or a helper the file defines as one) followed
// in the same block by `expect(`, with no wait for a condition (until/waitFor/poll) in between.
// Prove a negative with a sentinel that must arrive after it; poll a positive to a deadline. A
// test that measures time itself says so on the wait (or the comment lines just above it):
//   // timing-check: <why a fixed wait is the point>
// Run: node test/lint/fixed-waits.ts (npm run check does); the unit test runs it too.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface Offence {
  file: string;
  /** 1-based line of the wait. */
  line: number;
  /** The wait statement, trimmed (what an allow-list entry names). */
  wait: string;
  /** 1-based line of the assertion it is followed by. */
  assertionLine: number;
}

export interface Allowed {
  file: string;
  /** The wait statement as it reads, trimmed. */
  wait: string;
  /** Why it is still here and what removes it. */
  todo: string;
}

/**
 * Known offenders left for now, each named so that it can be found and removed. An entry whose
 * wait is gone is reported too: the list only shrinks.
 */
export const ALLOWED: readonly Allowed[] = [];

const OPT_OUT = /\/\/\s*timing-check:\s*\S/;
const CONDITION_WAIT =
  /\b(?:until|waitFor|waitUntil|waitForCondition|poll|eventually)\w*\s*\(|expect\.poll\(|vi\.waitFor\(/;
const ASSERTION = /\bexpect\s*\(/;

/** Names of helpers the source defines as a bare fixed wait: `const tick = () => new Promise((r) => setTimeout(r, 1))`. */
export function waitHelpers(source: string): string[] {
  const names = new Set(["sleep", "delay"]);
  const defs = [
    /\b(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?\([^)]*\)\s*(?::[^=]+)?=>\s*new Promise[^;]*?\bsetTimeout\(/g,
    /\bfunction\s+(\w+)\s*\([^)]*\)[^{]*\{\s*return\s+new Promise[^;]*?\bsetTimeout\(/g,
  ];
  for (const re of defs) for (const m of source.matchAll(re)) names.add(m[1]!);
  return [...names];
}

/** A line without its trailing `// ...` comment (one outside quotes). */
const withoutTrailingComment = (line: string) => line.replace(/\s*\/\/[^"'`]*$/, "");
const indentOf = (line: string) => line.length - line.trimStart().length;
const isComment = (t: string) => t.startsWith("//") || t.startsWith("/*") || t.startsWith("*");

/** The fixed waits of `source` followed by an assertion in the same block. */
export function findFixedWaits(file: string, source: string): Offence[] {
  const lines = source.split("\n");
  const helpers = waitHelpers(source);
  const helperCall = new RegExp(`^await\\s+(?:${helpers.join("|")})\\s*\\(`);
  const found: Offence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.trim();
    if (!text.startsWith("await ")) continue;
    // The whole statement (a wait may be wrapped over several lines).
    let statement = withoutTrailingComment(text);
    let end = i;
    let depth = 0;
    for (let j = i; j < lines.length; j++) {
      const l = withoutTrailingComment(j === i ? text : lines[j]!.trim());
      if (j > i) statement += ` ${l}`;
      for (const c of l) depth += c === "(" ? 1 : c === ")" ? -1 : 0;
      end = j;
      if (depth <= 0) break;
    }
    const isWait =
      helperCall.test(statement) ||
      /^await\s+new Promise\b[\s\S]*\bsetTimeout\(\s*\w+\s*,[^)]*\)[\s,]*\)\s*;?$/.test(statement) ||
      /^await\s+setTimeout\(/.test(statement) ||
      /^await\s+(?:timers\.)?setTimeout\(/.test(statement);
    if (!isWait) continue;
    if (OPT_OUT.test(lines[i]!) || optedOutAbove(lines, i)) continue;
    const indent = indentOf(lines[i]!);
    for (let k = end + 1; k < lines.length; k++) {
      const raw = lines[k]!;
      const t = raw.trim();
      if (!t || isComment(t)) continue;
      if (indentOf(raw) < indent) break; // the block ended: the wait paced a loop or a callback
      if (CONDITION_WAIT.test(t)) break;
      if (ASSERTION.test(t)) {
        found.push({ file, line: i + 1, wait: statement, assertionLine: k + 1 });
        break;
      }
    }
  }
  return found;
}

function optedOutAbove(lines: string[], i: number): boolean {
  for (let k = i - 1; k >= 0; k--) {
    const t = lines[k]!.trim();
    if (!t.startsWith("//")) return false;
    if (OPT_OUT.test(t)) return true;
  }
  return false;
}

/** Test code: every *.test.ts under src/, every .ts under test/. */
export function testFiles(root: string): string[] {
  const under = (dir: string, keep: (f: string) => boolean) =>
    readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => keep(f) && !f.split(path.sep).includes("node_modules"))
      .map((f) => path.posix.join(dir, f.split(path.sep).join("/")));
  return [...under("src", (f) => f.endsWith(".test.ts")), ...under("test", (f) => f.endsWith(".ts"))].sort();
}

export interface Report {
  offences: Offence[];
  /** Allow-list entries that match no wait any more: remove them. */
  stale: Allowed[];
}

/** Every offence in the repository at `root` not on `allowed`, and the stale entries of `allowed`. */
export function lintRepository(root: string, allowed: readonly Allowed[] = ALLOWED): Report {
  const left = [...allowed];
  const offences: Offence[] = [];
  for (const file of testFiles(root)) {
    for (const o of findFixedWaits(file, readFileSync(path.join(root, file), "utf8"))) {
      const at = left.findIndex((a) => a.file === o.file && a.wait === o.wait);
      if (at >= 0) left.splice(at, 1);
      else offences.push(o);
    }
  }
  return { offences, stale: left };
}

export function describeReport(r: Report): string {
  return [
    ...r.offences.map(
      (o) =>
        `${o.file}:${o.line}: a fixed wait (${o.wait}) followed by an assertion at line ${o.assertionLine}: poll the condition to a deadline, or prove the negative with a sentinel that must arrive after it; a test that measures time itself marks the wait with // timing-check: <why>`,
    ),
    ...r.stale.map(
      (a) =>
        `test/lint/fixed-waits.ts: the allow-list entry for ${a.file} (${a.wait}) matches nothing any more: remove it`,
    ),
  ].join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const report = lintRepository(root);
  if (report.offences.length || report.stale.length) {
    process.stderr.write(`${describeReport(report)}\n`);
    process.exit(1);
  }
  process.stdout.write("fixed-waits: no fixed wait is followed by an assertion\n");
}
