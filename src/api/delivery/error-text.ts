// Failure messages people can act on, never empty: the hosted service records "" for a timeout
// and Node's happy-eyeballs connect failure is an AggregateError whose own message is "".

/** "10 s", "0.25 s". */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

export function timeoutText(ms: number): string {
  return `timeout after ${seconds(ms)}`;
}

/** A network error as one line: "connect ECONNREFUSED 127.0.0.1:9", "getaddrinfo ENOTFOUND x". */
export function networkErrorText(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) {
    const parts = [...new Set(err.errors.map(networkErrorText))];
    return parts.join("; ");
  }
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    if (err.message.trim() !== "") return err.message.trim();
    if (code) return code;
    return err.name && err.name !== "Error" ? err.name : "network error (no detail given)";
  }
  const text = String(err ?? "").trim();
  return text === "" ? "network error (no detail given)" : text;
}
