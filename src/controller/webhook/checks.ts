// What the CRD schema cannot check about a Webhook, as small pure functions from observations to
// a verdict. A failing verdict becomes Ready=False with its reason, and its message tells the
// user the next step.

import type { StoredWebhook } from "../../schema/webhook.ts";
import type { Verdict } from "../runtime/index.ts";
import type { SecretKeys } from "./secret-cache.ts";

export function checkUrl(webhook: StoredWebhook): Verdict {
  const raw = webhook.spec?.url ?? "";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return {
      status: "False",
      reason: "InvalidURL",
      message: `spec.url ${JSON.stringify(raw)} is not an absolute URL: set it to where events should be POSTed, e.g. https://example.com/livepeer-events`,
    };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      status: "False",
      reason: "InvalidURL",
      message: `spec.url uses ${url.protocol.replace(/:$/, "")}: webhooks are delivered over http or https only`,
    };
  }
  if (url.username || url.password) {
    return {
      status: "False",
      reason: "InvalidURL",
      message:
        "spec.url contains credentials: remove them (the URL is shown in status and logs); authenticate deliveries with spec.sharedSecretRef signatures",
    };
  }
  return { status: "True", reason: "ValidURL", message: `events are POSTed to ${raw}` };
}

/** `secret` is the cached Secret named by spec.sharedSecretRef (undefined when it does not exist). */
export function checkSharedSecret(webhook: StoredWebhook, secret: SecretKeys | undefined): Verdict {
  const ref = webhook.spec?.sharedSecretRef;
  const ns = webhook.metadata?.namespace ?? "default";
  if (!ref?.name) {
    return {
      status: "True",
      reason: "Unsigned",
      message: "deliveries are not signed: spec.sharedSecretRef is not set",
    };
  }
  if (!secret) {
    return {
      status: "False",
      reason: "SecretNotFound",
      message: `Secret ${ref.name} (spec.sharedSecretRef) does not exist in namespace ${ns}: create it with 'kubectl create secret generic ${ref.name} -n ${ns} --from-literal=${ref.key}=<shared secret>' or point spec.sharedSecretRef.name at an existing Secret`,
    };
  }
  if (!secret.dataKeys.includes(ref.key)) {
    const has = secret.dataKeys.length ? `it has ${secret.dataKeys.join(", ")}` : "it is empty";
    return {
      status: "False",
      reason: "SecretKeyMissing",
      message: `Secret ${ref.name} has no key ${ref.key} (${has}): add the key to the Secret or set spec.sharedSecretRef.key to the key that holds the shared secret`,
    };
  }
  return {
    status: "True",
    reason: "SecretFound",
    message: `signed with key ${ref.key} of Secret ${ref.name}`,
  };
}
