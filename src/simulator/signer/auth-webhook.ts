// The signer's auth webhook, called as server/remote_signer.go authLivePayment calls it: only with
// -remoteSignerWebhookUrl, skipped while the state's AuthExpiry (unix seconds) is not past; POST
// JSON {headers: <the caller's request headers, Go's canonical keys, each a list>, state}, with
// Content-Type application/json and the -remoteSignerWebhookHeaders, a 5 s timeout. Anything but
// 200 from the webhook, a body that is not JSON, or no positive `status` is the signer's own
// failure (500); otherwise the answer's status is what the caller gets, with its reason (or
// "signer auth rejected request with status <n>").
import type { RemotePaymentState } from "./payment-state.ts";

export const WEBHOOK_TIMEOUT_MS = 5_000;

export interface AuthAnswer {
  status?: number;
  reason?: string;
  expiry?: number;
  auth_id?: string;
  maxPrice?: { price?: string | number; unit?: string; currency?: string };
}

export type AuthOutcome =
  | { status: 200; answer?: AuthAnswer }
  | { status: number; reason: string; answer?: AuthAnswer };

export interface AuthWebhook {
  url: URL;
  /** -remoteSignerWebhookHeaders, parsed. */
  headers: Record<string, string>;
}

/** starter.go parseHeaderMap: "key:val,key2:val2" (entries without a colon are skipped). */
export function parseHeaderMap(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf(":");
    if (at <= 0) continue;
    out[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return out;
}

/** textproto.CanonicalMIMEHeaderKey: "signer-auth-id" -> "Signer-Auth-Id". */
export function canonicalHeaderKey(key: string): string {
  return key.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

/** Go's r.Header: canonical keys, every value kept, Host left out (Go moves it to r.Host). */
export function goRequestHeaders(rawHeaders: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const key = canonicalHeaderKey(rawHeaders[i]!);
    if (key === "Host") continue;
    const values = out[key] ?? [];
    values.push(rawHeaders[i + 1]!);
    out[key] = values;
  }
  return out;
}

export async function authLivePayment(
  webhook: AuthWebhook | undefined,
  requestHeaders: Record<string, string[]>,
  state: RemotePaymentState,
  nowSeconds: number,
): Promise<AuthOutcome> {
  if (!webhook) return { status: 200 };
  if (state.AuthExpiry !== 0 && nowSeconds <= state.AuthExpiry) return { status: 200 };
  let response: Response;
  try {
    response = await fetch(webhook.url, {
      method: "POST",
      headers: { ...webhook.headers, "Content-Type": "application/json" },
      body: JSON.stringify({ headers: requestHeaders, state }),
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
  } catch (err) {
    return { status: 500, reason: `failed to call remote signer webhook: ${(err as Error).message}` };
  }
  const text = await response.text().catch(() => "");
  if (response.status !== 200) return { status: 500, reason: `signer auth error status ${response.status}` };
  let answer: AuthAnswer;
  try {
    answer = JSON.parse(text) as AuthAnswer;
    if (!answer || typeof answer !== "object") throw new Error("not an object");
  } catch (err) {
    return { status: 500, reason: `signer auth invalid response: ${(err as Error).message}` };
  }
  if (typeof answer.status !== "number" || answer.status <= 0) {
    return { status: 500, reason: "signer auth invalid status" };
  }
  if (answer.status !== 200) {
    return {
      status: answer.status,
      reason: answer.reason || `signer auth rejected request with status ${answer.status}`,
      answer,
    };
  }
  return { status: 200, answer };
}
