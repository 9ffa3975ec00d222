// Where a gateway finds orchestrators: -orchAddr (a fixed list), or -orchWebhookUrl, asked as the
// node asks it (discovery/wh_discovery.go): GET, a 3 s timeout, a JSON list of {address, score}
// (entries without an address or with an address that is not an absolute URL are skipped), kept for
// the refresh interval (common.WebhookDiscoveryRefreshInterval, 1 minute) and asked again only
// when the pool is read after that: by /status, or by a stream that needs orchestrators. A failed
// refresh keeps the last list (with a warning); with none yet, the gateway has no orchestrators.
import { STATUS_CODES } from "node:http";
import type { GlogLevel } from "../glog.ts";

export interface PoolEntry {
  /** As the list gave it, e.g. https://10.0.0.5:8935. */
  url: string;
  score: number;
}

export interface OrchestratorPool {
  /** The current list, refreshing it first when it is older than the refresh interval. */
  entries(): Promise<{ entries: PoolEntry[]; error?: string }>;
}

export const WEBHOOK_REFRESH_INTERVAL_MS = 60_000;
const WEBHOOK_TIMEOUT_MS = 3_000;

type Log = (level: GlogLevel, where: string, message: string) => void;

export function staticPool(urls: readonly string[]): OrchestratorPool {
  const entries = urls.map((url) => ({ url, score: 1 }));
  return { entries: async () => ({ entries }) };
}

export class WebhookPool implements OrchestratorPool {
  private cached: PoolEntry[] | undefined;
  private lastRequest = 0;
  private inFlight: Promise<{ entries: PoolEntry[]; error?: string }> | undefined;
  private readonly url: URL;
  private readonly refreshMs: number;
  private readonly log: Log;

  private readonly headers: Record<string, string>;

  /** `headers`: sent with each request (a remote signer's discovery gets -remoteSignerHeaders). */
  constructor(url: URL, refreshMs: number, log: Log, headers: Record<string, string> = {}) {
    this.url = url;
    this.refreshMs = refreshMs;
    this.log = log;
    this.headers = headers;
  }

  entries(): Promise<{ entries: PoolEntry[]; error?: string }> {
    if (this.cached && Date.now() - this.lastRequest < this.refreshMs) {
      return Promise.resolve({ entries: this.cached });
    }
    this.inFlight ??= this.refresh().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async refresh(): Promise<{ entries: PoolEntry[]; error?: string }> {
    let body: string;
    try {
      body = await this.fetchList();
      const parsed = this.parse(body);
      this.cached = parsed;
      this.lastRequest = Date.now();
      return { entries: parsed };
    } catch (err) {
      const error = (err as Error).message;
      if (!this.cached) return { entries: [], error };
      this.log(
        "W",
        "wh_discovery.go:125",
        `Unable to refresh orchestrator webhook; using cached orchestrator list: ${error}`,
      );
      return { entries: this.cached };
    }
  }

  private async fetchList(): Promise<string> {
    const target = this.url.toString();
    let response: Response;
    try {
      response = await fetch(target, {
        headers: this.headers,
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
        redirect: "follow",
      });
    } catch (err) {
      const why = goClientError("Get", target, err);
      this.log("E", "wh_discovery.go:170", `Unable to make webhook request ${why}`);
      throw new Error(why);
    }
    if (response.status < 200 || response.status >= 300) {
      await response.body?.cancel();
      const why =
        `orchestrator webhook returned HTTP status ${response.status} ${STATUS_CODES[response.status] ?? ""}`.trimEnd();
      this.log("E", "wh_discovery.go:176", why);
      throw new Error(why);
    }
    return response.text();
  }

  private parse(body: string): PoolEntry[] {
    let list: unknown;
    try {
      list = JSON.parse(body) as unknown;
    } catch {
      const c = body.trimStart()[0];
      const why =
        c === undefined
          ? "unexpected end of JSON input"
          : `invalid character '${c}' looking for beginning of value`;
      this.log("E", "wh_discovery.go:195", `Unable to unmarshal JSON ${why}`);
      throw new Error(why);
    }
    if (!Array.isArray(list)) {
      const kind = list === null ? "null" : typeof list === "object" ? "object" : typeof list;
      const why = `json: cannot unmarshal ${kind} into Go value of type []discovery.webhookResponse`;
      if (list !== null) {
        this.log("E", "wh_discovery.go:195", `Unable to unmarshal JSON ${why}`);
        throw new Error(why);
      }
      return []; // Go decodes null into an empty list
    }
    const entries: PoolEntry[] = [];
    for (const item of list as { address?: unknown; score?: unknown }[]) {
      const address = typeof item?.address === "string" ? item.address : "";
      if (address === "") continue;
      if (!isRequestUri(address)) {
        this.log(
          "E",
          "wh_discovery.go:205",
          `Unable to parse address  ${JSON.stringify(address)} : parse ${JSON.stringify(address)}: invalid URI for request`,
        );
        continue;
      }
      entries.push({ url: address, score: typeof item.score === "number" ? item.score : 0 });
    }
    return entries;
  }
}

/** Go's url.ParseRequestURI accepts absolute URLs (and absolute paths, useless here). */
function isRequestUri(address: string): boolean {
  if (address.startsWith("/")) return true;
  try {
    return new URL(address).protocol.length > 1 && /^[a-z][a-z0-9+.-]*:/i.test(address);
  } catch {
    return false;
  }
}

/** An HTTP client failure in the words of Go's net/http, e.g. Get "http://x": dial tcp ...: connect: connection refused. */
export function goClientError(method: "Get" | "Post", url: string, err: unknown): string {
  const e = err as {
    name?: string;
    cause?: { code?: string; address?: string; port?: number; hostname?: string };
  };
  const cause = e.cause;
  const prefix = `${method} ${JSON.stringify(url)}`;
  if (e.name === "TimeoutError" || e.name === "AbortError") {
    return `${prefix}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
  }
  const where = cause?.address ? `${cause.address}:${cause.port}` : new URL(url).host;
  if (cause?.code === "ECONNREFUSED") return `${prefix}: dial tcp ${where}: connect: connection refused`;
  if (cause?.code === "ENOTFOUND")
    return `${prefix}: dial tcp: lookup ${cause.hostname ?? new URL(url).hostname}: no such host`;
  if (cause?.code === "ECONNRESET") return `${prefix}: read tcp ${where}: read: connection reset by peer`;
  return `${prefix}: ${cause?.code ?? (err as Error).message}`;
}
