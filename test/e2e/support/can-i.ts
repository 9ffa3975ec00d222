// Reading `kubectl auth can-i` honestly: "yes" is exit 0 with "yes" on stdout, "no" is exit 1
// with "no" (and perhaps " - <reason>") on stdout, and either only with nothing on stderr. kubectl
// answers "no" to a misspelled resource or verb too, with a warning on stderr ("the server
// doesn't have a resource type", "is not a known verb"), and any other failure also exits 1: all
// of those are errors here, never a denial that a test would take as proof of least privilege.
import { execFile } from "node:child_process";

export interface CanIRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** true for kubectl's own "yes", false for its own "no"; throws on anything else, quoting it. */
export function canIAnswer(run: CanIRun, what = "kubectl auth can-i"): boolean {
  const out = run.stdout.trim();
  const err = run.stderr.trim();
  if (!err) {
    if (run.code === 0 && out === "yes") return true;
    if (run.code === 1 && /^no( - [^\n]+)?$/.test(out)) return false;
  }
  throw new Error(
    `${what} gave no clean answer (exit ${run.code}); a misspelled resource or verb, or a failure, is not a denial:\nstdout: ${out || "(empty)"}\nstderr: ${err || "(empty)"}`,
  );
}

/** Runs `kubectl auth can-i <args>` with stdout and stderr kept apart. */
export function runCanI(kubectl: string, kubeconfig: string, args: readonly string[]): Promise<CanIRun> {
  return new Promise((resolve) => {
    execFile(
      kubectl,
      [`--kubeconfig=${kubeconfig}`, "auth", "can-i", ...args],
      { timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        resolve({ code, stdout, stderr: err && code === -1 ? `${stderr}${err.message}` : stderr });
      },
    );
  });
}

/** `kubectl auth can-i <args>` answered: true (yes), false (no); rejects on anything else. */
export async function canI(kubectl: string, kubeconfig: string, args: readonly string[]): Promise<boolean> {
  return canIAnswer(await runCanI(kubectl, kubeconfig, args), `kubectl auth can-i ${args.join(" ")}`);
}
