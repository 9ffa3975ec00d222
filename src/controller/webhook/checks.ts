// What the CRD schema cannot check about a Webhook, as small pure functions from observations to
// a verdict. A failing verdict becomes Ready=False with its reason, and its message tells the
// user the next step.

import type { Webhook } from "./resource.ts";
import type { SecretKeys } from "./secret-cache.ts";

export type Verdict = { ok: true; note?: string } | { ok: false; reason: string; message: string };

export function checkUrl(webhook: Webhook): Verdict {
  const raw = webhook.spec?.url ?? "";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return {
      ok: false,
      reason: "InvalidURL",
      message: `spec.url ${JSON.stringify(raw)} is not an absolute URL: set it to where events should be POSTed, e.g. https://example.com/livepeer-events`,
    };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      ok: false,
      reason: "InvalidURL",
      message: `spec.url uses ${url.protocol.replace(/:$/, "")}: webhooks are delivered over http or https only`,
    };
  }
  if (url.username || url.password) {
    return {
      ok: false,
      reason: "InvalidURL",
      message:
        "spec.url contains credentials: remove them (the URL is shown in status and logs); authenticate deliveries with spec.sharedSecretRef signatures",
    };
  }
  return { ok: true };
}

/** `secret` is the cached Secret named by spec.sharedSecretRef (undefined when it does not exist). */
export function checkSharedSecret(webhook: Webhook, secret: SecretKeys | undefined): Verdict {
  const ref = webhook.spec?.sharedSecretRef;
  const ns = webhook.metadata?.namespace ?? "default";
  if (!ref?.name) return { ok: true, note: "deliveries are not signed: spec.sharedSecretRef is not set" };
  if (!secret) {
    return {
      ok: false,
      reason: "SecretNotFound",
      message: `Secret ${ref.name} (spec.sharedSecretRef) does not exist in namespace ${ns}: create it with 'kubectl create secret generic ${ref.name} -n ${ns} --from-literal=${ref.key}=<shared secret>' or point spec.sharedSecretRef.name at an existing Secret`,
    };
  }
  if (!secret.dataKeys.includes(ref.key)) {
    const has = secret.dataKeys.length ? `it has ${secret.dataKeys.join(", ")}` : "it is empty";
    return {
      ok: false,
      reason: "SecretKeyMissing",
      message: `Secret ${ref.name} has no key ${ref.key} (${has}): add the key to the Secret or set spec.sharedSecretRef.key to the key that holds the shared secret`,
    };
  }
  return { ok: true };
}
