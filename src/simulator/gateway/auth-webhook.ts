// -authWebhookUrl, called as the node calls it for every new stream (server/auth.go
// authenticateStream): POST, Content-Type application/json, body {"url": "<the ingest URL>"}.
// Only 200 accepts; an empty body keeps the manifest id of the URL; a JSON body must name a
// manifestID (it may also set streamID, sessionID, presets). Anything else rejects the stream.
import { goClientError } from "./orchestrator-pool.ts";

export interface AuthWebhookAnswer {
  manifestID: string;
  streamID?: string;
  sessionID?: string;
  presets?: string[];
}

export type AuthOutcome =
  | { accepted: true; answer?: AuthWebhookAnswer; tookMs: number }
  | { accepted: false; error: string };

/** The node's client has no timeout; the simulator gives up after this long rather than hang. */
const AUTH_TIMEOUT_MS = 30_000;

export async function authenticateStream(authUrl: URL, ingestUrl: string): Promise<AuthOutcome> {
  const started = performance.now();
  let status: number;
  let body: string;
  try {
    const response = await fetch(authUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ url: ingestUrl }),
      signal: AbortSignal.timeout(AUTH_TIMEOUT_MS),
    });
    status = response.status;
    body = await response.text();
  } catch (err) {
    return { accepted: false, error: goClientError("Post", authUrl.toString(), err) };
  }
  if (status !== 200) return { accepted: false, error: `status=${status} error=${body}` };
  if (body.length === 0) return { accepted: true, tookMs: performance.now() - started };
  let parsed: Partial<Record<keyof AuthWebhookAnswer, unknown>>;
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch (err) {
    return { accepted: false, error: (err as Error).message };
  }
  if (typeof parsed.manifestID !== "string" || parsed.manifestID === "") {
    return { accepted: false, error: "empty manifest id not allowed" };
  }
  const answer: AuthWebhookAnswer = { manifestID: parsed.manifestID };
  if (typeof parsed.streamID === "string") answer.streamID = parsed.streamID;
  if (typeof parsed.sessionID === "string") answer.sessionID = parsed.sessionID;
  if (Array.isArray(parsed.presets)) answer.presets = parsed.presets.map(String);
  return { accepted: true, answer, tookMs: performance.now() - started };
}

/** A URL for the log with its secrets hidden: the password (as Go's URL.Redacted) and query values. */
export function redactedUrl(url: URL | string): string {
  const u = new URL(url.toString());
  if (u.password) u.password = "xxxxx";
  for (const key of [...u.searchParams.keys()]) u.searchParams.set(key, "xxxxx");
  return u.toString();
}
