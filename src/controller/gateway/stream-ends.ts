// The ends of a gateway's streams, for its stream.idle events. go-livepeer has no end-of-stream
// webhook; it logs "Ended stream with manifestID=<id> external manifestID=<ext>"
// (server/mediaserver.go removeRTMPStream). The node doctor already reads every gateway pod's log
// each period: each new line comes here, and the ends of Gateways with spec.streamEvents.enabled
// are reported to the API's stream-events hook (the URL with the gateway's token, from its hooks
// Secret), retried with backoff until the API takes them. The API derives the event id from the
// gateway, pod, stream and the line's exact timestamp, so a line read or reported twice is one event.
import { errorMessage, type KubeClient, type KubeObject, type ObjectKey, Secrets } from "../../kube/index.ts";
import { endedStreamOf } from "../../node/streams/end-line.ts";
import { type Logger, silentLogger } from "../../process/log.ts";
import type { StreamEnd } from "../../schema/node-hooks.ts";
import type { TimedLine } from "../doctor/log-cursor.ts";
import { gatewayChildNames, HOOKS_SECRET_KEYS } from "./names.ts";

/** Lines older than this (a log read for the first time) are history, not news. */
const MAX_LINE_AGE_MS = 24 * 3600_000;
/** Ends waiting per gateway while the API does not take them; past it the oldest are dropped. */
const MAX_PENDING = 1000;

/** The end a log line tells, as the stream-events hook takes it; undefined for any other line. */
export function streamEndOf(pod: string, line: TimedLine, now: number): StreamEnd | undefined {
  const ended = endedStreamOf(line.text);
  if (!ended || now - line.at.getTime() > MAX_LINE_AGE_MS) return undefined;
  return { ...ended, pod, at: exactTime(line.ns) };
}

/** RFC 3339 with the line's nanoseconds: part of the event id, so it must not round. */
export function exactTime(ns: bigint): string {
  const seconds = ns / 1_000_000_000n;
  const fraction = (ns % 1_000_000_000n).toString().padStart(9, "0");
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

export interface StreamEndReporterOptions {
  /** Where a Gateway's stream-events hook is: by default the URL in its hooks Secret. */
  hookUrl: (namespace: string, name: string) => Promise<string>;
  log?: Logger;
  /** First retry after a failed report (default 2 s), doubling up to maxRetryMs (default 60 s). */
  retryMs?: number;
  maxRetryMs?: number;
  timeoutMs?: number;
}

interface Reporting {
  namespace: string;
  name: string;
  pending: StreamEnd[];
  timer: NodeJS.Timeout | undefined;
  sending: boolean;
  failures: number;
}

export class StreamEndReporter {
  readonly #hookUrl: StreamEndReporterOptions["hookUrl"];
  readonly #log: Logger;
  readonly #retryMs: number;
  readonly #maxRetryMs: number;
  readonly #timeoutMs: number;
  readonly #gateways = new Map<ObjectKey, Reporting>();

  constructor(o: StreamEndReporterOptions) {
    this.#hookUrl = o.hookUrl;
    this.#log = o.log ?? silentLogger;
    this.#retryMs = o.retryMs ?? 2_000;
    this.#maxRetryMs = o.maxRetryMs ?? 60_000;
    this.#timeoutMs = o.timeoutMs ?? 5_000;
  }

  /** Called by the reconciler: whether this Gateway's ends are reported. */
  track(key: ObjectKey, gateway: { namespace: string; name: string }, enabled: boolean): void {
    if (!enabled) {
      this.forget(key);
      return;
    }
    if (!this.#gateways.has(key)) {
      this.#gateways.set(key, { ...gateway, pending: [], timer: undefined, sending: false, failures: 0 });
    }
  }

  forget(key: ObjectKey): void {
    const r = this.#gateways.get(key);
    if (r) clearTimeout(r.timer);
    this.#gateways.delete(key);
  }

  /** The node doctor's line callback. */
  readonly onLine = (key: ObjectKey, pod: string, line: TimedLine): void => {
    const r = this.#gateways.get(key);
    if (!r) return;
    const end = streamEndOf(pod, line, Date.now());
    if (!end) return;
    r.pending.push(end);
    if (r.pending.length > MAX_PENDING) {
      r.pending.splice(0, r.pending.length - MAX_PENDING);
      this.#log.warn("dropped the oldest stream ends of a gateway: the API has not taken them", {
        gateway: `${r.namespace}/${r.name}`,
      });
    }
    if (!r.timer && !r.sending) {
      r.timer = setTimeout(() => void this.#send(key, r), 0);
      r.timer.unref();
    }
  };

  stop(): void {
    for (const key of [...this.#gateways.keys()]) this.forget(key);
  }

  async #send(key: ObjectKey, r: Reporting): Promise<void> {
    r.timer = undefined;
    if (this.#gateways.get(key) !== r || r.pending.length === 0) return;
    r.sending = true;
    const ends = r.pending.slice(0, MAX_PENDING);
    let retry = false;
    try {
      const outcome = await this.#post(r, ends);
      if (outcome === "taken" || outcome === "refused") r.pending.splice(0, ends.length);
      retry = outcome === "retry";
    } catch (err) {
      retry = true;
      if (r.failures === 0) {
        this.#log.warn("could not report stream ends to the API; retrying", {
          gateway: `${r.namespace}/${r.name}`,
          error: errorMessage(err),
        });
      }
    } finally {
      r.sending = false;
    }
    if (this.#gateways.get(key) !== r) return;
    r.failures = retry ? r.failures + 1 : 0;
    if (r.pending.length === 0) return;
    const wait = retry ? Math.min(this.#maxRetryMs, this.#retryMs * 2 ** (r.failures - 1)) : 0;
    r.timer = setTimeout(() => void this.#send(key, r), wait);
    r.timer.unref();
  }

  async #post(r: Reporting, ends: StreamEnd[]): Promise<"taken" | "refused" | "retry"> {
    const url = await this.#hookUrl(r.namespace, r.name);
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ends }),
      signal: AbortSignal.timeout(this.#timeoutMs),
    });
    const text = await res.text();
    if (res.ok) return "taken";
    const message = `HTTP ${res.status}: ${text.slice(0, 300)}`;
    // 503 (store down, API starting), 404 (the API's cache has not seen the new token yet): again.
    if (res.status >= 500 || res.status === 404 || res.status === 429) {
      if (r.failures === 0) {
        this.#log.warn("the API did not take a gateway's stream ends; retrying", {
          gateway: `${r.namespace}/${r.name}`,
          error: message,
        });
      }
      return "retry";
    }
    this.#log.warn("the API refused a gateway's stream ends; dropped", {
      gateway: `${r.namespace}/${r.name}`,
      error: message,
    });
    return "refused";
  }
}

/** The stream-events URL in a Gateway's hooks Secret (read when a report is sent: it carries the token). */
export function hooksSecretUrl(client: KubeClient): StreamEndReporterOptions["hookUrl"] {
  return async (namespace, name) => {
    const secret = await client.get<KubeObject & { data?: Record<string, string> }>(
      Secrets,
      namespace,
      gatewayChildNames(name).hooksSecret,
    );
    const encoded = secret.data?.[HOOKS_SECRET_KEYS.streamEventsUrl];
    if (!encoded) throw new Error("the hooks Secret has no stream-events URL yet");
    return Buffer.from(encoded, "base64").toString("utf8");
  };
}
