// What the auth webhook needs of a RemoteSigner: who its tenants are, their caps and budgets,
// how long an answer holds, and the digest of its hook token.

export interface PriceCaps {
  live?: string | undefined;
  lv2v?: string | undefined;
  fixed?: string | undefined;
}

export interface SignerTenant {
  /** The `sub` of the tenant's signing JWT. */
  name: string;
  maxPrice?: PriceCaps | undefined;
  apps?: { app: string; maxPrice?: PriceCaps | undefined }[] | undefined;
  budget?: { perDay?: string | undefined; perStream?: string | undefined } | undefined;
  /** RFC 3339. */
  expiresAt?: string | undefined;
}

export interface SignerPolicy {
  namespace: string;
  name: string;
  /** The `expiry` an answer grants: how long the signer skips the webhook for a session. */
  authCacheSeconds: number;
  tenants: readonly SignerTenant[];
}
