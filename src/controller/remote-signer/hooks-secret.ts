// The signer's hooks Secret (pure): a token drawn once, the URLs that carry it (the pod reads the
// auth hook as LP_REMOTESIGNERWEBHOOKURL, the discovery feed as LP_ORCHWEBHOOKURL) and, readable
// without the values, the token's digest (published in status.hookTokenDigest for the API to check
// the signer's calls against) and the base URL the URLs were made for.
import type { V1Secret } from "@kubernetes/client-node";
import { hookTokenDigest, remoteSignerHookUrl } from "../../schema/node-hooks.ts";
import { HOOKS_BASE_ANNOTATION, hooksSecretState, TOKEN_DIGEST_ANNOTATION } from "../gateway/hooks-secret.ts";
import { generatedSecret } from "../node-pod/index.ts";
import { SIGNER_HOOKS_KEYS, signerChildNames } from "./names.ts";

export interface SignerHooksSecretInput {
  signer: string;
  namespace: string;
  token: string;
  base: string;
}

export function signerHooksSecret(i: SignerHooksSecretInput): V1Secret {
  return generatedSecret({
    name: signerChildNames(i.signer).hooksSecret,
    namespace: i.namespace,
    values: {
      [SIGNER_HOOKS_KEYS.token]: i.token,
      [SIGNER_HOOKS_KEYS.authWebhookUrl]: remoteSignerHookUrl(i.base, i.namespace, i.signer, "auth", i.token),
      [SIGNER_HOOKS_KEYS.orchWebhookUrl]: remoteSignerHookUrl(
        i.base,
        i.namespace,
        i.signer,
        "orchestrators",
        i.token,
      ),
    },
    annotations: { [TOKEN_DIGEST_ANNOTATION]: hookTokenDigest(i.token), [HOOKS_BASE_ANNOTATION]: i.base },
  });
}

/** As the gateway's: missing, current (this base, every key) or stale (same token, new URLs). */
export function signerHooksSecretState(
  cached: { metadata?: { annotations?: Record<string, string> }; dataKeys?: readonly string[] } | undefined,
  base: string,
) {
  return hooksSecretState(cached, base, Object.values(SIGNER_HOOKS_KEYS));
}
