// What the auth webhook needs of a RemoteSigner: who its tenants are, their caps and budgets and
// how long an answer holds (the schema's own types: src/schema/remote-signer.ts).
import type { RemoteSignerSpec, SignerMaxPrice, SignerTenant } from "../../schema/remote-signer.ts";

export type { SignerTenant };
export type PriceCaps = SignerMaxPrice;

export interface SignerPolicy {
  namespace: string;
  name: string;
  /** The `expiry` an answer grants: how long the signer skips the webhook for a session. */
  authCacheSeconds: number;
  tenants: readonly SignerTenant[];
}

/** The policy of a RemoteSigner as read from the cluster (defaults filled in as the CRD does). */
export function signerPolicy(
  namespace: string,
  name: string,
  spec: Partial<Pick<RemoteSignerSpec, "authCacheSeconds" | "tenants">> | undefined,
): SignerPolicy {
  return { namespace, name, authCacheSeconds: spec?.authCacheSeconds ?? 60, tenants: spec?.tenants ?? [] };
}
