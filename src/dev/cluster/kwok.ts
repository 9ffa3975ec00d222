// kwok's configuration: the stages that make fake nodes Ready and fake pods Running (shipped
// with kwok's module and copied into the binary cache), and its CRDs for Logs/ClusterLogs so
// tests can point a fake pod's `kubectl logs` at a file at run time.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** This project's own stages (e.g. fake pods that fail on purpose), after kwok's. */
const OWN_STAGES = path.join(path.dirname(fileURLToPath(import.meta.url)), "kwok-stages");

export const KWOK_LOG_CRDS = ["Logs", "ClusterLogs"];

/** Concatenates every stage file into one multi-document config for `kwok --config`. */
export function writeKwokConfig(dataDir: string, file: string): void {
  const docs = [path.join(dataDir, "stages"), OWN_STAGES].flatMap((stagesDir) =>
    readdirSync(stagesDir)
      .filter((f) => f.endsWith(".yaml"))
      .sort()
      .map((f) => readFileSync(path.join(stagesDir, f), "utf8").trim()),
  );
  writeFileSync(file, `${docs.join("\n---\n")}\n`);
}

export function kwokCrdFiles(dataDir: string): string[] {
  const dir = path.join(dataDir, "crds");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => path.join(dir, f));
}

/** One line in the CRI log format kwok serves (`kubectl logs` refuses plain text). */
export function criLogLine(line: string, stream: "stdout" | "stderr" = "stderr", at = new Date()): string {
  return `${at.toISOString().replace(/Z$/, "000000Z")} ${stream} F ${line}\n`;
}
