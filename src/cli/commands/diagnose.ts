// `livepeer-operator diagnose [file|-]`: explains a Livepeer node's log offline, e.g.
// `kubectl logs pod | livepeer-operator diagnose -`. Streams the log: any size works.
import { open } from "node:fs/promises";
import type { Readable } from "node:stream";
import { parseArgs } from "node:util";
import { classifyLines } from "../../node/diagnosis/classifier.ts";
import { linesOf } from "../../node/diagnosis/lines.ts";
import type { LogFinding, Severity } from "../../node/diagnosis/types.ts";
import { type Command, UsageError } from "../command.ts";

const usage = `Usage: livepeer-operator diagnose [file|-] [--json]

Reads a go-livepeer node's log (a file, or standard input with '-' or a pipe) and explains the
known conditions in it: what each means and what to do, with a sample line.

  --json   one JSON object per finding per line (id, severity, condition, meaning, action,
           count, line, firstLineNumber, lastLine, lastLineNumber, samples)

Exit status: 1 if an error-severity condition was seen, 0 otherwise, 2 for usage errors.

Example:
  kubectl logs orchestrator-0 | livepeer-operator diagnose -`;

async function openInput(path: string | undefined): Promise<Readable> {
  if (path === undefined || path === "-") {
    if (path === undefined && process.stdin.isTTY) {
      throw new UsageError(
        "give a log file, or pipe a log in: kubectl logs <pod> | livepeer-operator diagnose -",
      );
    }
    return process.stdin;
  }
  try {
    const handle = await open(path, "r");
    if ((await handle.stat()).isDirectory()) {
      await handle.close();
      throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    }
    return handle.createReadStream();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : (err as Error).message;
    throw new UsageError(`cannot read ${path}: ${why}`);
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function describe(f: LogFinding): string {
  const where =
    f.count === 1 ? `line ${f.firstLineNumber}` : `lines ${f.firstLineNumber}-${f.lastLineNumber}`;
  return [
    `${f.severity.toUpperCase().padEnd(8)} ${f.id}: ${plural(f.count, "line")} (${where})`,
    `  Condition: ${f.condition}`,
    `  Meaning:   ${f.meaning}`,
    `  Action:    ${f.action}`,
    `  Sample:    ${f.firstLine}`,
  ].join("\n");
}

function summary(findings: LogFinding[], lines: number): string {
  if (findings.length === 0) return `Read ${plural(lines, "line")}: no known condition found.`;
  const count = (s: Severity) => findings.filter((f) => f.severity === s).length;
  return `Read ${plural(lines, "line")}: ${plural(count("error"), "error")}, ${plural(count("warning"), "warning")}, ${plural(count("normal"), "normal condition")}.`;
}

function asJson(f: LogFinding): string {
  return JSON.stringify({
    id: f.id,
    severity: f.severity,
    condition: f.condition,
    meaning: f.meaning,
    action: f.action,
    count: f.count,
    line: f.firstLine,
    firstLineNumber: f.firstLineNumber,
    lastLine: f.lastLine,
    lastLineNumber: f.lastLineNumber,
    samples: f.samples,
  });
}

export const command: Command = {
  name: "diagnose",
  summary: "Explain a Livepeer node's log: known conditions, what they mean, what to do.",
  usage,
  async run(args) {
    let parsed: ReturnType<
      typeof parseArgs<{ options: { json: { type: "boolean" } }; allowPositionals: true }>
    >;
    try {
      parsed = parseArgs({
        args,
        options: { json: { type: "boolean" } },
        allowPositionals: true,
        strict: true,
      });
    } catch (err) {
      throw new UsageError(`${(err as Error).message}\n\n${usage}`);
    }
    if (parsed.positionals.length > 1) {
      throw new UsageError(`give one log file (or '-'), not ${parsed.positionals.length}\n\n${usage}`);
    }
    const name = parsed.positionals[0];
    const input = await openInput(name);
    let result: Awaited<ReturnType<typeof classifyLines>>;
    try {
      result = await classifyLines(linesOf(input));
    } catch (err) {
      throw new UsageError(`cannot read ${name ?? "standard input"}: ${(err as Error).message}`);
    }
    const { findings, lines } = result;
    const out = parsed.values.json
      ? findings.map((f) => `${asJson(f)}\n`).join("")
      : `${[...findings.map(describe), summary(findings, lines)].join("\n\n")}\n`;
    process.stdout.write(out);
    return findings.some((f) => f.severity === "error") ? 1 : 0;
  },
};
