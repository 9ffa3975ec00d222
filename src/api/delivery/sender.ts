// One HTTP POST of a delivery attempt, with the safety rules: the target's addresses are judged
// at connect time (guarded-lookup.ts; IP literals here, since Node skips the lookup for them),
// by the address policy and then the egress restriction (loopback-only), no redirects are
// followed, one deadline covers connect to last byte, and only the first bytes of the response
// are kept (a huge answer is cut off and its connection dropped).
// node:http as in builtin-http.ts (no undici facade); node:https likewise.
import type * as httpTypes from "node:http";
import type * as httpsTypes from "node:https";
import { isIP } from "node:net";
import { http } from "../../process/builtin-http.ts";
import { type Allowlist, DEFAULT_DELIVERY_EGRESS, type DeliveryEgress } from "./address-policy.ts";
import { networkErrorText, timeoutText } from "./error-text.ts";
import {
  guardedLookup,
  nameRefusal,
  type TargetPolicy,
  TargetRefusedError,
  targetRefusal,
} from "./guarded-lookup.ts";
import type { LoggedResponse } from "./model.ts";
import type { AttemptOutcome } from "./retry-policy.ts";

const https = process.getBuiltinModule("node:https");

export interface SenderOptions {
  /** The whole attempt, connect to last byte read (default 10 s). */
  timeoutMs?: number | undefined;
  allow: Allowlist;
  /** "loopback-only" refuses every address outside 127.0.0.0/8 and ::1 before connecting (default "public"). */
  egress?: DeliveryEgress | undefined;
  /** Bytes of the response body kept for the log and lastFailure (default 1 KiB). */
  keepResponseBytes?: number | undefined;
  /** Past this many body bytes the response is cut off (default 64 KiB). */
  readResponseBytes?: number | undefined;
  /** Connections per origin (default 64). */
  maxSocketsPerOrigin?: number | undefined;
  /** Name resolution, for tests that need a name resolving to a given address. */
  resolve?: Parameters<typeof guardedLookup>[1];
}

export interface SendResult {
  outcome: AttemptOutcome;
  response?: LoggedResponse | undefined;
  durationMs: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

export class Sender {
  readonly timeoutMs: number;
  readonly #policy: TargetPolicy;
  readonly #keep: number;
  readonly #readLimit: number;
  readonly #http: httpTypes.Agent;
  readonly #https: httpsTypes.Agent;
  readonly #targets = new Map<string, Target | string>();

  constructor(opts: SenderOptions) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#policy = { allow: opts.allow, egress: opts.egress ?? DEFAULT_DELIVERY_EGRESS };
    this.#keep = opts.keepResponseBytes ?? 1024;
    this.#readLimit = Math.max(this.#keep, opts.readResponseBytes ?? 64 * 1024);
    const agentOptions = {
      keepAlive: true,
      maxSockets: opts.maxSocketsPerOrigin ?? 64,
      scheduling: "lifo" as const,
      lookup: guardedLookup(this.#policy, opts.resolve),
    };
    this.#http = new http.Agent(agentOptions);
    this.#https = new https.Agent(agentOptions);
  }

  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const target = this.#targetOf(url);
    if (typeof target === "string") return Promise.resolve({ outcome: refused(target), durationMs: 0 });
    return this.#post(target, headers, body, () => Math.round(performance.now() - started));
  }

  /** Where `url` points, parsed once per URL (a webhook sends many times); a string says why not. */
  #targetOf(url: string): Target | string {
    let target = this.#targets.get(url);
    if (target === undefined) {
      target = parseTarget(url, this.#policy);
      if (this.#targets.size >= 10_000) this.#targets.clear();
      this.#targets.set(url, target);
    }
    return target;
  }

  #post(
    target: Target,
    headers: Record<string, string>,
    body: string,
    elapsed: () => number,
  ): Promise<SendResult> {
    const { secure } = target;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      let response: LoggedResponse | undefined;
      let retryAfter: string | undefined;
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let readBytes = 0;
      let req: httpTypes.ClientRequest | undefined;
      const finish = (outcome?: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!response) {
          const error = outcome ?? { kind: "error", error: "the connection closed without a response" };
          resolve({ outcome: error, durationMs: elapsed() });
          return;
        }
        response.body = keptText(Buffer.concat(kept).subarray(0, this.#keep));
        const { status, statusText } = response;
        resolve({
          outcome: { kind: "response", status, statusText, body: response.body, retryAfter },
          response,
          durationMs: elapsed(),
        });
      };
      // One deadline for the whole attempt. After the status arrived the answer stands; before, a timeout.
      const timer = setTimeout(() => {
        req?.destroy();
        finish(response ? undefined : { kind: "error", error: timeoutText(this.timeoutMs) });
      }, this.timeoutMs);
      const options: httpsTypes.RequestOptions = {
        ...target.options,
        method: "POST",
        agent: secure ? this.#https : this.#http,
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      };
      try {
        req = (secure ? https : http).request(options, (res) => {
          response = { status: res.statusCode ?? 0, statusText: res.statusMessage ?? "", body: "" };
          const ra = res.headers["retry-after"];
          retryAfter = Array.isArray(ra) ? ra[0] : ra;
          res.on("data", (chunk: Buffer) => {
            readBytes += chunk.length;
            if (keptBytes < this.#keep) {
              kept.push(chunk);
              keptBytes += chunk.length;
            }
            if (readBytes > this.#readLimit) {
              res.destroy();
              finish();
            }
          });
          res.on("end", () => finish());
          res.on("error", () => finish());
          res.on("close", () => finish());
        });
      } catch (err) {
        // e.g. a header value Node refuses: not retryable, and never a thrown attempt.
        finish(refused(`the request could not be built: ${networkErrorText(err)}`));
        return;
      }
      req.on("error", (err) => {
        if (err instanceof TargetRefusedError) finish(refused(err.message));
        else finish({ kind: "error", error: networkErrorText(err) });
      });
      req.end(body);
    });
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

export interface Target {
  secure: boolean;
  options: { protocol: string; hostname: string; port: string; path: string };
}

/**
 * The request options for `url`, or why it may not be a target: judged here for IP literals (Node
 * skips the lookup for them) and, under egress loopback-only, for names other than localhost.
 */
export function parseTarget(url: string, policy: TargetPolicy): Target | string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `url ${JSON.stringify(url)} is not a valid URL`;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    return `url scheme ${u.protocol} is not allowed: use http:// or https://`;
  }
  const host = u.hostname.replace(/^\[(.*)\]$/, "$1");
  const refusal = isIP(host) ? targetRefusal(host, host, policy) : nameRefusal(host, policy);
  if (refusal) return refusal;
  const secure = u.protocol === "https:";
  return {
    secure,
    options: {
      protocol: u.protocol,
      hostname: host,
      port: u.port || (secure ? "443" : "80"),
      path: `${u.pathname}${u.search}`,
    },
  };
}

/**
 * The kept bytes of a response as text for the log and lastFailure: UTF-8, with NUL characters as
 * U+FFFD (PostgreSQL text cannot hold NUL, and a settle with one such row would fail whole).
 */
function keptText(bytes: Buffer): string {
  return bytes.toString("utf8").replaceAll("\0", "\uFFFD");
}

function refused(error: string): AttemptOutcome {
  return { kind: "refused", error };
}
