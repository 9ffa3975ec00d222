// go-livepeer's clog: a message prefixed with the request's context values, the standard keys in a
// fixed order first, then the others in the order they were added ("manifestID=abc nonce=7 seqNo=3
// clientIP=127.0.0.1 Got push request ..."), as clog.formatMessage writes them.

const STANDARD_KEYS = [
  "manifestID",
  "sessionID",
  "nonce",
  "seqNo",
  "orchSessionID",
  "ethaddress",
  "orchestrator",
] as const;

type StandardKey = (typeof STANDARD_KEYS)[number];

export interface LogContext {
  standard?: Partial<Record<StandardKey, string | number | bigint>>;
  /** Other values (clientIP, sender ...) in the order the node adds them. */
  extra?: readonly (readonly [string, string])[];
}

export function clogMessage(context: LogContext, message: string): string {
  let prefix = "";
  for (const key of STANDARD_KEYS) {
    const value = context.standard?.[key];
    if (value !== undefined) prefix += `${key}=${value} `;
  }
  for (const [key, value] of context.extra ?? []) prefix += `${key}=${value} `;
  return prefix + message;
}

/** Go's %q of a string: double-quoted with Go escapes (enough for error texts). */
export function goQuote(text: string): string {
  return JSON.stringify(text).replace(/\\u00([0-9a-f]{2})/g, "\\x$1");
}

/** Go's time.Duration String(): "1.5s", "250ms", "3.2µs", "1m5s". */
export function goDuration(ms: number): string {
  if (ms === 0) return "0s";
  const trim = (n: number) => String(Number(n.toFixed(6)));
  if (ms < 0.001) return `${Math.round(ms * 1e6)}ns`;
  if (ms < 1) return `${trim(ms * 1000)}µs`;
  if (ms < 1000) return `${trim(ms)}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${trim(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${trim(seconds - minutes * 60)}s`;
  return `${Math.floor(minutes / 60)}h${minutes % 60}m${trim(seconds - minutes * 60)}s`;
}
