// A trickle client for the simulators (the live runner's pass-through, tests): GET and POST of
// whole segments over HTTP/1.1, following the protocol's codes (trickle/README.md): 470 moves to
// the write head it names, 404 ends a subscription, Lp-Trickle-Closed ends it too. TLS is not
// verified, as the node's own trickle clients skip verification without live runners (and as the
// official SDK's do always): the orchestrator's certificate is self-signed.
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

const httpAgent = new HttpAgent({ keepAlive: true });
const httpsAgent = new HttpsAgent({ keepAlive: true, rejectUnauthorized: false });

export interface TrickleAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export function trickleRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: Buffer; signal?: AbortSignal } = {},
): Promise<TrickleAnswer> {
  const u = new URL(url);
  const secure = u.protocol === "https:";
  return new Promise((resolve, reject) => {
    const req = (secure ? httpsRequest : httpRequest)(
      u,
      {
        method: init.method ?? "GET",
        headers: { ...init.headers, ...(init.body ? { "Content-Length": String(init.body.length) } : {}) },
        agent: secure ? httpsAgent : httpAgent,
        ...(init.signal ? { signal: init.signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.once("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.once("error", reject);
      },
    );
    req.once("error", reject);
    req.end(init.body);
  });
}

/** One header's value as text (the first when repeated). */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** Publishes one whole segment: POST {url}/{seq}. */
export async function publishSegment(
  url: string,
  seq: number,
  data: Buffer,
  mimeType: string,
  signal?: AbortSignal,
): Promise<TrickleAnswer> {
  return trickleRequest(`${url}/${seq}`, {
    method: "POST",
    headers: { "Content-Type": mimeType },
    body: data,
    ...(signal ? { signal } : {}),
  });
}

export type SubscriptionEnd = "not found" | "closed" | "aborted" | "failed";

/**
 * Reads segments from `start` (-1: the next write) until the channel goes (404, or
 * Lp-Trickle-Closed) or `signal` aborts; each whole segment goes to `onSegment` in order.
 */
export async function subscribeSegments(
  url: string,
  onSegment: (seq: number, data: Buffer, mimeType: string) => Promise<void> | void,
  options: { start?: number; signal?: AbortSignal; retryDelayMs?: number } = {},
): Promise<SubscriptionEnd> {
  let seq = options.start ?? -1;
  let failures = 0;
  for (;;) {
    if (options.signal?.aborted) return "aborted";
    let answer: TrickleAnswer;
    try {
      answer = await trickleRequest(`${url}/${seq}`, options.signal ? { signal: options.signal } : {});
    } catch {
      if (options.signal?.aborted) return "aborted";
      if (++failures >= 5) return "failed";
      await delay(options.retryDelayMs ?? 500, options.signal);
      continue;
    }
    failures = 0;
    if (answer.status === 404) return "not found";
    const latest = Number(header(answer.headers, "Lp-Trickle-Latest"));
    if (answer.status === 470) {
      // Behind the retention window: jump to the write head; ahead of it: ask again shortly.
      if (Number.isInteger(latest) && latest >= seq) seq = latest;
      else await delay(250, options.signal);
      continue;
    }
    if (answer.status !== 200) {
      if (++failures >= 5) return "failed";
      await delay(options.retryDelayMs ?? 500, options.signal);
      continue;
    }
    const got = Number(header(answer.headers, "Lp-Trickle-Seq"));
    if (answer.body.length > 0) {
      await onSegment(
        Number.isInteger(got) ? got : seq,
        answer.body,
        header(answer.headers, "Content-Type") ?? "",
      );
    }
    if (header(answer.headers, "Lp-Trickle-Closed")) return "closed";
    seq = (Number.isInteger(got) && got >= 0 ? got : seq) + 1;
  }
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
