import { describe, expect, it } from "vitest";
import { hookTokenDigest } from "../../schema/node-hooks.ts";
import {
  HOOKS_BASE_ANNOTATION,
  hooksSecret,
  hooksSecretState,
  TOKEN_DIGEST_ANNOTATION,
} from "./hooks-secret.ts";

const token = "t".repeat(43);
const base = "http://api.livepeer-system.svc";

describe("the gateway's hooks Secret", () => {
  it("carries one token in the discovery, stream auth and stream-events URLs", () => {
    const s = hooksSecret({ gateway: "gw", namespace: "video", token, base });
    const data = Object.fromEntries(
      Object.entries(s.data ?? s.stringData ?? {}).map(([k, v]) => [
        k,
        s.data ? Buffer.from(v, "base64").toString("utf8") : v,
      ]),
    );
    expect(data).toEqual({
      token,
      orchWebhookUrl: `${base}/node-hooks/v1/gateways/video/gw/orchestrators?token=${token}`,
      authWebhookUrl: `${base}/node-hooks/v1/gateways/video/gw/auth?token=${token}`,
      streamEventsUrl: `${base}/node-hooks/v1/gateways/video/gw/stream-events?token=${token}`,
    });
    expect(s.metadata?.annotations?.[TOKEN_DIGEST_ANNOTATION]).toBe(hookTokenDigest(token));
  });

  const digest = hookTokenDigest(token);
  const cached = (annotations: Record<string, string>, dataKeys: string[]) => ({
    metadata: { annotations },
    dataKeys,
  });
  const all = ["authWebhookUrl", "orchWebhookUrl", "streamEventsUrl", "token"];
  it.each([
    ["no Secret", undefined, "missing"],
    ["no digest", cached({ [HOOKS_BASE_ANNOTATION]: base }, all), "missing"],
    [
      "made for this base URL with every key",
      cached({ [TOKEN_DIGEST_ANNOTATION]: digest, [HOOKS_BASE_ANNOTATION]: base }, all),
      "current",
    ],
    [
      "made for another base URL",
      cached({ [TOKEN_DIGEST_ANNOTATION]: digest, [HOOKS_BASE_ANNOTATION]: "http://old" }, all),
      "stale",
    ],
    [
      "made before the stream hooks existed (discovery URL only)",
      cached({ [TOKEN_DIGEST_ANNOTATION]: digest, [HOOKS_BASE_ANNOTATION]: base }, [
        "orchWebhookUrl",
        "token",
      ]),
      "stale",
    ],
  ])("%s: %s", (_, secret, state) => {
    expect(hooksSecretState(secret, base).state).toBe(state);
  });
});
