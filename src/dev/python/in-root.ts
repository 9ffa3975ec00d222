// Running a program inside the Python root: `unshare --mount` gives the run a mount namespace of
// its own, where /proc, /dev and the read-only bind mounts (the host's DNS settings, a script's
// folder, pip's settings while installing) are mounted; then `chroot` into the root. The mounts
// exist only in that namespace: they die with the process, whether it exits, times out or is
// killed, and the host never sees them (no umount to forget, nothing left after a crash).
// chroot keeps the host's network namespace, so servers on the host's loopback are reachable.
import { spawn } from "node:child_process";

/** A host path mounted read-only at `target` inside the root (a file or a folder). */
export interface Bind {
  source: string;
  target: string;
}

/** An environment variable of the program; `fromHost` ones are shown as "$NAME" (never their value). */
export interface EnvVar {
  name: string;
  value: string;
  fromHost?: boolean;
}

export interface RootCommand {
  argv: string[];
  /** The same command for a shell, values taken from the host shown as "$NAME": safe to print. */
  shown: string;
}

/** Exit code of the mount wrapper when it could not set the root up (before the program ran). */
export const SETUP_FAILED = 97;

// $1 = root, then (source, target) pairs up to "--", then env assignments and the program.
const WRAPPER = [
  "set -u",
  'root=$1; shift; fail() { echo "[python-root] $*" >&2; exit 97; }',
  'mount -t proc proc "$root/proc" || fail "mounting /proc in $root failed"',
  'mount --rbind /dev "$root/dev" || fail "bind-mounting /dev in $root failed"',
  'while [ "$1" != "--" ]; do',
  "  src=$1; at=$2; dst=$root$2; shift 2",
  '  if [ -d "$src" ]; then mkdir -p "$dst"; else mkdir -p "$(dirname "$dst")"; [ -e "$dst" ] || : > "$dst"; fi',
  '  mount -o bind,ro "$src" "$dst" || fail "bind-mounting $src at $at failed"',
  "done",
  "shift",
  'exec chroot "$root" /usr/bin/env -i "$@"',
].join("\n");

/** Quotes one word for a POSIX shell (bare when it has nothing the shell would read). */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_/.,:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command that runs `program` (argv inside the root) with exactly `env`, the binds mounted. */
export function inRootCommand(
  root: string,
  binds: readonly Bind[],
  env: readonly EnvVar[],
  program: readonly string[],
): RootCommand {
  const head = ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", WRAPPER, "sh", root];
  const bindWords = binds.flatMap((b) => [b.source, b.target]);
  const argv = [...head, ...bindWords, "--", ...env.map((e) => `${e.name}=${e.value}`), ...program];
  const shown = [
    ...[...head, ...bindWords, "--"].map(shellWord),
    ...env.map((e) => (e.fromHost ? `${e.name}="$${e.name}"` : shellWord(`${e.name}=${e.value}`))),
    ...program.map(shellWord),
  ].join(" ");
  return { argv, shown };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs a command to its end, its own process group killed at `timeoutMs`; never rejects (the
 * exit code says what happened). A host `timeout` wraps it too, so a run whose parent died
 * still ends.
 */
export function runCommand(
  argv: readonly string[],
  opts: { timeoutMs: number; input?: string; onStart?: (pid: number) => void },
): Promise<RunResult> {
  const seconds = Math.max(1, Math.ceil(opts.timeoutMs / 1000) + 5);
  const full = ["timeout", "--kill-after=5", String(seconds), ...argv];
  return new Promise((resolve) => {
    const child = spawn(full[0]!, full.slice(1), { detached: true, stdio: ["pipe", "pipe", "pipe"] });
    // The group leader: GNU timeout passes a SIGTERM it gets on to its whole group.
    if (child.pid) opts.onStart?.(child.pid);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, opts.timeoutMs);
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.stdin.on("error", () => {});
    child.stdin.end(opts.input ?? "");
    const finish = (code: number, extra = "") => {
      clearTimeout(timer);
      resolve({
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8") + extra,
        timedOut: timedOut || code === 124,
      });
    };
    child.on("error", (e) => finish(127, `\ncould not start ${full[0]}: ${e.message}`));
    // 124: the host `timeout` fired; a killed group reports the signal.
    child.on("close", (code, signal) => finish(code ?? (signal ? 128 + 9 : 1)));
  });
}
